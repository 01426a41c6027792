// The validated configuration every other module reads: its fields are the settings table's.

import type { AuthConfig } from "./auth-schemes.js";
import type { Section } from "./settings.js";
import type { Thresholds } from "./threshold-table.js";

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

export type VenueConfig = Section<"venue">;

export type Config = Section<""> & {
  venue: VenueConfig;
  accounts: AccountConfig[];
  scrape: Section<"scrape">;
  web: Section<"web">;
  /** This process's place among the replicas that split the accounts (kube-state-metrics' --shard/--total-shards). */
  sharding: Section<"sharding">;
};

/** The prefix every path is served under: the route prefix, else the external URL's path, else "/" (Prometheus's rule). */
export function routePrefix(config: Pick<Config, "externalUrl" | "routePrefix">): string {
  if (config.routePrefix !== undefined) return config.routePrefix;
  const path = config.externalUrl?.pathname.replace(/\/$/, "") ?? "";
  return path === "" ? "/" : path;
}
