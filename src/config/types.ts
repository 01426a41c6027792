// The validated configuration every other module reads; built from the environment or a file.

import type { Secret } from "./secret.js";
import type { LogFormat, LogLevel } from "./values.js";

export type AuthConfig =
  | { type: "api_key"; header: string; key: Secret }
  | { type: "bearer"; token: Secret }
  | { type: "basic"; username: string; password: Secret }
  | { type: "none" };

export interface AccountConfig {
  /** The `account` label. */
  name: string;
  collateralIds: string[];
  auth: AuthConfig;
  /** Extra static headers sent to the private endpoints. */
  headers: Record<string, string>;
}

// The fields below are the settings table's (settings.ts: each setting's `at`), whose help says what each means.

export interface VenueConfig {
  baseUrl: URL;
  historyMaxOrders: number;
  historyPageSize: number;
  activeOrdersLimit: number;
  activeOrdersLimitParam: string;
  maxBodyBytes: number;
  maxItems: number;
  maxRetryAfterSeconds: number;
  marketsCacheSeconds: number;
}

export interface ScrapeConfig {
  minCollectionIntervalSeconds: number;
  defaultTimeoutSeconds: number;
  timeoutOffsetSeconds: number;
  maxTimeoutSeconds: number;
  maxInFlight: number;
  maxQueued: number;
  maxSeries: number;
}

/** The exporter's own HTTP server; read at start-up only. */
export interface HttpServerConfig {
  maxConnections: number;
  idleTimeoutSeconds: number;
  systemdSocket: boolean;
  telemetryPath: string;
  disableExporterMetrics: boolean;
}

/** This process's place among the replicas that split the accounts (kube-state-metrics' --shard/--total-shards). */
export interface Sharding {
  /** Numbered from 0; always below totalShards. */
  shard: number;
  totalShards: number;
}

export interface Config {
  venue: VenueConfig;
  accounts: AccountConfig[];
  scrape: ScrapeConfig;
  listenAddresses: Array<{ host: string; port: number }>;
  web: HttpServerConfig;
  logLevel: LogLevel;
  logFormat: LogFormat;
  webConfigFile: string | undefined;
  sharding: Sharding;
}
