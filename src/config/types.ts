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

export interface VenueConfig {
  baseUrl: URL;
  /** History is paged with offset/limit up to this many orders per scrape. */
  historyMaxOrders: number;
  historyPageSize: number;
  /** The limit asked of the active-orders list, and the query parameter that carries it. */
  activeOrdersLimit: number;
  activeOrdersLimitParam: string;
  maxBodyBytes: number;
  /** Items of one list (positions, orders, markets) read from one answer; the rest are counted, not read. */
  maxItems: number;
  maxRetryAfterSeconds: number;
  /** The public market list is reused this long after a successful read. */
  marketsCacheSeconds: number;
  /** Keep each request's last body, so an unchanged answer is not parsed or rendered again (memory for CPU). */
  reuseUnchangedBodies: boolean;
}

export interface ScrapeConfig {
  /** A scrape this soon after the start of an account's last collection is answered from it; 0: every scrape collects. */
  minCollectionIntervalSeconds: number;
  /** Deadline of a scrape when Prometheus sends no timeout header. */
  defaultTimeoutSeconds: number;
  /** Subtracted from Prometheus's timeout header, so the answer arrives in time. */
  timeoutOffsetSeconds: number;
  /** Upper bound of a scrape's deadline, whatever the header says. */
  maxTimeoutSeconds: number;
  /** Scrapes served at once; more answer 503 at once. 0: no limit. */
  maxInFlight: number;
  /** Scrapes that wait for a slot (up to half their budget) when all are taken; past them 503 at once. */
  maxQueued: number;
  /** Series per scrape; the rest are dropped and counted. */
  maxSeries: number;
}

/** The exporter's own HTTP server; read at start-up only. */
export interface HttpServerConfig {
  /** Connections open at once; one more is closed at once and counted. */
  maxConnections: number;
  /** An idle keep-alive connection is closed after this long. */
  idleTimeoutSeconds: number;
  /** Serve on the sockets systemd passes (LISTEN_FDS), not on the listen addresses. */
  systemdSocket: boolean;
  /** Where the metrics are served ("/metrics" unless moved). */
  telemetryPath: string;
  /** No process_* or nodejs_* series on the telemetry path. */
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
  /** Each address is served (one server each); none is used with `web.systemdSocket`. */
  listenAddresses: Array<{ host: string; port: number }>;
  web: HttpServerConfig;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** --web.config.file: TLS and basic auth of the exporter itself; read at start-up only. */
  webConfigFile: string | undefined;
  /** Which accounts this process serves: the others belong to other replicas. */
  sharding: Sharding;
}
