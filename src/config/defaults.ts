// Defaults every configuration source starts from; the README's tables list the same values.

import type { VenueConfig } from "./types.js";

export const DEFAULTS = {
  listenAddress: "0.0.0.0:9842",
  apiKeyHeader: "X-Api-Key",
  account: "default",
  historyMaxOrders: 1000,
  historyPageSize: 100,
  activeOrdersLimit: 1000,
  activeOrdersLimitParam: "limit",
  maxBodyBytes: 10 * 1024 * 1024,
  maxRetryAfterSeconds: 300,
  defaultTimeoutSeconds: 10,
  timeoutOffsetSeconds: 0.5,
  maxTimeoutSeconds: 60,
  maxInFlight: 40,
  maxSeries: 200_000,
  marketsCacheSeconds: 60,
  reuseUnchangedBodies: true,
  logLevel: "info",
} as const;

export function defaultVenue(baseUrl: URL): VenueConfig {
  return {
    baseUrl,
    historyMaxOrders: DEFAULTS.historyMaxOrders,
    historyPageSize: DEFAULTS.historyPageSize,
    activeOrdersLimit: DEFAULTS.activeOrdersLimit,
    activeOrdersLimitParam: DEFAULTS.activeOrdersLimitParam,
    maxBodyBytes: DEFAULTS.maxBodyBytes,
    maxRetryAfterSeconds: DEFAULTS.maxRetryAfterSeconds,
    marketsCacheSeconds: DEFAULTS.marketsCacheSeconds,
    reuseUnchangedBodies: DEFAULTS.reuseUnchangedBodies,
  };
}

