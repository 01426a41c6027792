// Configuration from TRADING_* environment variables: the quick start, one account.

import { readFileSync } from "node:fs";
import { DEFAULTS, defaultVenue } from "./defaults.js";
import { ConfigError } from "./errors.js";
import { Secret } from "./secret.js";
import type { Config } from "./types.js";
import {
  parseBaseUrl,
  parseHeaderName,
  parseIdList,
  parseListenAddress,
  parseLogLevel,
  parsePositiveInt,
  parsePositiveSeconds,
  parseBoolean,
  parseSecondsOrZero,
} from "./values.js";

type Env = Record<string, string | undefined>;

/** A secret from its variable or from the file its *_FILE variable names; exactly one of the two. */
export function readSecret(env: Env, name: string): Secret {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct !== undefined && file !== undefined) throw new ConfigError(`${name} and ${name}_FILE: give one, not both`);
  if (direct !== undefined) {
    if (direct.trim() === "") throw new ConfigError(`${name}: is empty`);
    return new Secret(direct.trim(), name);
  }
  if (file === undefined) throw new ConfigError(`${name} or ${name}_FILE: required`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new ConfigError(`${name}_FILE: cannot read the file (${code})`);
  }
  if (text.trim() === "") throw new ConfigError(`${name}_FILE: the file is empty`);
  return new Secret(text.trim(), `${name}_FILE`);
}

export function configFromEnv(env: Env): Config {
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value;
  };
  const required = (name: string): string => {
    const value = get(name);
    if (value === undefined) throw new ConfigError(`${name}: required`);
    return value;
  };
  const optional = <T>(name: string, parse: (text: string, key: string) => T, fallback: T): T => {
    const value = get(name);
    return value === undefined ? fallback : parse(value, name);
  };

  const venue = defaultVenue(parseBaseUrl(required("TRADING_BASE_URL"), "TRADING_BASE_URL"));
  venue.historyMaxOrders = optional("TRADING_HISTORY_MAX_ORDERS", (t, k) => parsePositiveInt(t, k, 1_000_000), venue.historyMaxOrders);
  venue.historyPageSize = optional("TRADING_HISTORY_PAGE_SIZE", (t, k) => parsePositiveInt(t, k, 100_000), venue.historyPageSize);
  venue.activeOrdersLimit = optional("TRADING_ACTIVE_ORDERS_LIMIT", (t, k) => parsePositiveInt(t, k, 1_000_000), venue.activeOrdersLimit);
  venue.activeOrdersLimitParam = optional("TRADING_ACTIVE_ORDERS_LIMIT_PARAM", parseHeaderName, venue.activeOrdersLimitParam);
  venue.maxBodyBytes = optional("TRADING_MAX_BODY_BYTES", parsePositiveInt, venue.maxBodyBytes);
  venue.maxRetryAfterSeconds = optional("TRADING_MAX_RETRY_AFTER_SECONDS", parsePositiveSeconds, venue.maxRetryAfterSeconds);
  venue.reuseUnchangedBodies = optional("TRADING_REUSE_UNCHANGED_BODIES", parseBoolean, venue.reuseUnchangedBodies);
  venue.marketsCacheSeconds = optional("TRADING_MARKETS_CACHE_SECONDS", parseSecondsOrZero, venue.marketsCacheSeconds);

  const name = get("TRADING_ACCOUNT") ?? DEFAULTS.account;
  return {
    venue,
    accounts: [
      {
        name,
        collateralIds: parseIdList(required("TRADING_COLLATERAL_IDS"), "TRADING_COLLATERAL_IDS"),
        auth: {
          type: "api_key",
          header: optional("TRADING_API_KEY_HEADER", parseHeaderName, DEFAULTS.apiKeyHeader),
          key: readSecret(env, "TRADING_API_KEY"),
        },
        headers: {},
      },
    ],
    scrape: {
      defaultTimeoutSeconds: optional("TRADING_SCRAPE_TIMEOUT_SECONDS", parsePositiveSeconds, DEFAULTS.defaultTimeoutSeconds),
      timeoutOffsetSeconds: optional("TRADING_SCRAPE_TIMEOUT_OFFSET_SECONDS", parseSecondsOrZero, DEFAULTS.timeoutOffsetSeconds),
      maxTimeoutSeconds: optional("TRADING_SCRAPE_TIMEOUT_MAX_SECONDS", parsePositiveSeconds, DEFAULTS.maxTimeoutSeconds),
      maxInFlight: optional("TRADING_MAX_IN_FLIGHT_SCRAPES", (t, k) => parsePositiveInt(t, k, 100_000), DEFAULTS.maxInFlight),
      maxSeries: optional("TRADING_MAX_SERIES", parsePositiveInt, DEFAULTS.maxSeries),
    },
    listenAddress: optional("TRADING_LISTEN_ADDRESS", parseListenAddress, parseListenAddress(DEFAULTS.listenAddress, "default")),
    logLevel: optional("TRADING_LOG_LEVEL", parseLogLevel, DEFAULTS.logLevel),
  };
}
