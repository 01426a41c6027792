// The validated configuration every other module reads; built from the environment or a file.

import type { Secret } from "./secret.js";
import type { Section } from "./settings.js";
import type { Thresholds } from "./threshold-table.js";
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
  /** Its alert thresholds: its own `thresholds:` over the file's, over the defaults. */
  thresholds: Thresholds;
}

/** The venue's settings; each field's help is its setting's in settings.ts. */
export type VenueConfig = Section<"venue">;

/** This process's place among the replicas that split the accounts (kube-state-metrics' --shard/--total-shards); shard numbered from 0, always below totalShards. */
export type Sharding = Section<"sharding">;

export interface Config {
  venue: VenueConfig;
  accounts: AccountConfig[];
  scrape: Section<"scrape">;
  listenAddresses: Array<{ host: string; port: number }>;
  /** The exporter's own HTTP server; read at start-up only. */
  web: Section<"web">;
  logLevel: LogLevel;
  logFormat: LogFormat;
  webConfigFile: string | undefined;
  /** Where clients reach the exporter (ending in "/"), when it is not where it listens. */
  externalUrl: URL | undefined;
  /** As given; the prefix served is `routePrefix(config)`. */
  routePrefix: string | undefined;
  sharding: Sharding;
}

/** The prefix every path is served under: the route prefix, else the external URL's path, else "/" (Prometheus's rule). */
export function routePrefix(config: Pick<Config, "externalUrl" | "routePrefix">): string {
  if (config.routePrefix !== undefined) return config.routePrefix;
  const path = config.externalUrl?.pathname.replace(/\/$/, "") ?? "";
  return path === "" ? "/" : path;
}
