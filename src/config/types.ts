// The validated configuration every other module reads (its fields are the settings table's), and an account's credential.

import type { Secret } from "./secret.js";
import type { Section } from "./settings.js";
import type { Thresholds } from "./threshold-table.js";

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

type Part<T> = () => T | undefined;

/** An account's credential of `type` from its parts (undefined: a problem reported); each is read, so each problem is named. */
export function authOf(type: AuthConfig["type"], header: Part<string>, username: Part<string>, secret: Part<Secret>): AuthConfig | undefined {
  if (type === "none") return { type };
  const [name, user, value] = [type === "api_key" ? header() : "", type === "basic" ? username() : "", secret()];
  if (name === undefined || user === undefined || value === undefined) return undefined;
  if (type === "api_key") return { type, header: name, key: value };
  return type === "bearer" ? { type, token: value } : { type, username: user, password: value };
}
