// Configuration from a YAML file: several accounts, each with its own credentials, validated strictly.

import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import { DEFAULTS } from "./defaults.js";
import { ConfigError } from "./errors.js";
import { readSecretSpec } from "./secret-source.js";
import type { AccountConfig, AuthConfig, Config } from "./types.js";
import { parseBaseUrl, parseHeaderName, parseListenAddress } from "./values.js";
import { configErrorFrom } from "./zod-issues.js";

const text = z.string().min(1);
const positiveInt = z.number().int().min(1);
const seconds = z.number().min(0);

const secretKeys = <K extends string>(key: K) =>
  ({ [key]: text.optional(), [`${key}_file`]: text.optional(), [`${key}_env`]: text.optional() }) as Record<
    K | `${K}_file` | `${K}_env`,
    z.ZodOptional<typeof text>
  >;

const AUTH = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("api_key"), header_name: text.default(DEFAULTS.apiKeyHeader), ...secretKeys("key") }),
  z.strictObject({ type: z.literal("bearer"), ...secretKeys("token") }),
  z.strictObject({ type: z.literal("basic"), username: text, ...secretKeys("password") }),
  z.strictObject({ type: z.literal("none") }),
]);

const ACCOUNT = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1-64 letters, digits or _ . : -"),
  collateral_ids: z.array(text).min(1),
  auth: AUTH,
  headers: z.record(z.string(), z.string()).default({}),
});

const SCHEMA = z.strictObject({
  venue: z.strictObject({
    base_url: text,
    history_max_orders: positiveInt.max(1_000_000).default(DEFAULTS.historyMaxOrders),
    history_page_size: positiveInt.max(100_000).default(DEFAULTS.historyPageSize),
    active_orders_limit: positiveInt.max(1_000_000).default(DEFAULTS.activeOrdersLimit),
    active_orders_limit_param: text.default(DEFAULTS.activeOrdersLimitParam),
    max_body_bytes: positiveInt.default(DEFAULTS.maxBodyBytes),
    max_retry_after_seconds: seconds.default(DEFAULTS.maxRetryAfterSeconds),
    markets_cache_seconds: seconds.default(DEFAULTS.marketsCacheSeconds),
    reuse_unchanged_bodies: z.boolean().default(DEFAULTS.reuseUnchangedBodies),
  }),
  accounts: z.array(ACCOUNT).min(1),
  scrape: z
    .strictObject({
      default_timeout_seconds: z.number().positive().default(DEFAULTS.defaultTimeoutSeconds),
      timeout_offset_seconds: seconds.default(DEFAULTS.timeoutOffsetSeconds),
      max_timeout_seconds: z.number().positive().default(DEFAULTS.maxTimeoutSeconds),
      max_in_flight: positiveInt.default(DEFAULTS.maxInFlight),
      max_series: positiveInt.default(DEFAULTS.maxSeries),
    })
    .default({
      default_timeout_seconds: DEFAULTS.defaultTimeoutSeconds,
      timeout_offset_seconds: DEFAULTS.timeoutOffsetSeconds,
      max_timeout_seconds: DEFAULTS.maxTimeoutSeconds,
      max_in_flight: DEFAULTS.maxInFlight,
      max_series: DEFAULTS.maxSeries,
    }),
  web: z.strictObject({ listen_address: text.default(DEFAULTS.listenAddress) }).default({ listen_address: DEFAULTS.listenAddress }),
  log: z
    .strictObject({ level: z.enum(["debug", "info", "warn", "error"]).default(DEFAULTS.logLevel) })
    .default({ level: DEFAULTS.logLevel }),
});

type RawAccount = z.infer<typeof ACCOUNT>;
type Env = Record<string, string | undefined>;

function auth(raw: RawAccount["auth"], key: string, env: Env, baseDir: string): AuthConfig {
  switch (raw.type) {
    case "api_key":
      return {
        type: "api_key",
        header: parseHeaderName(raw.header_name, `${key}.header_name`),
        key: readSecretSpec({ inline: raw.key, file: raw.key_file, env: raw.key_env }, `${key}.key`, env, baseDir),
      };
    case "bearer":
      return {
        type: "bearer",
        token: readSecretSpec({ inline: raw.token, file: raw.token_file, env: raw.token_env }, `${key}.token`, env, baseDir),
      };
    case "basic":
      return {
        type: "basic",
        username: raw.username,
        password: readSecretSpec({ inline: raw.password, file: raw.password_file, env: raw.password_env }, `${key}.password`, env, baseDir),
      };
    case "none":
      return { type: "none" };
  }
}

function account(raw: RawAccount, i: number, env: Env, baseDir: string): AccountConfig {
  const key = `accounts[${i}]`;
  if (new Set(raw.collateral_ids).size !== raw.collateral_ids.length) {
    throw new ConfigError(`${key}.collateral_ids: lists an id twice`);
  }
  for (const name of Object.keys(raw.headers)) parseHeaderName(name, `${key}.headers.${name}`);
  return { name: raw.name, collateralIds: raw.collateral_ids, auth: auth(raw.auth, `${key}.auth`, env, baseDir), headers: raw.headers };
}

/** Validates parsed YAML into a Config; secrets are read from their files and variables now. */
export function configFromObject(data: unknown, env: Env, baseDir: string): Config {
  const parsed = SCHEMA.safeParse(data, { reportInput: true });
  if (!parsed.success) throw configErrorFrom(parsed.error);
  const raw = parsed.data;
  const names = new Set<string>();
  raw.accounts.forEach((a, i) => {
    if (names.has(a.name)) throw new ConfigError(`accounts[${i}].name: another account has this name`);
    names.add(a.name);
  });
  return {
    venue: {
      baseUrl: parseBaseUrl(raw.venue.base_url, "venue.base_url"),
      historyMaxOrders: raw.venue.history_max_orders,
      historyPageSize: raw.venue.history_page_size,
      activeOrdersLimit: raw.venue.active_orders_limit,
      activeOrdersLimitParam: parseHeaderName(raw.venue.active_orders_limit_param, "venue.active_orders_limit_param"),
      maxBodyBytes: raw.venue.max_body_bytes,
      maxRetryAfterSeconds: raw.venue.max_retry_after_seconds,
      marketsCacheSeconds: raw.venue.markets_cache_seconds,
      reuseUnchangedBodies: raw.venue.reuse_unchanged_bodies,
    },
    accounts: raw.accounts.map((a, i) => account(a, i, env, baseDir)),
    scrape: {
      defaultTimeoutSeconds: raw.scrape.default_timeout_seconds,
      timeoutOffsetSeconds: raw.scrape.timeout_offset_seconds,
      maxTimeoutSeconds: raw.scrape.max_timeout_seconds,
      maxInFlight: raw.scrape.max_in_flight,
      maxSeries: raw.scrape.max_series,
    },
    listenAddress: parseListenAddress(raw.web.listen_address, "web.listen_address"),
    logLevel: raw.log.level,
  };
}

/** Reads and validates a config file; every problem is one ConfigError line naming the key. */
export function loadConfigFile(path: string, env: Env): Config {
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`config file: cannot read ${path} (${(error as { code?: string }).code ?? "unreadable"})`);
  }
  const doc = parseDocument(source, { uniqueKeys: true, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem !== undefined) {
    // The line number and the parser's code only: the line's text could hold a secret.
    const line = source.slice(0, problem.pos[0]).split("\n").length;
    throw new ConfigError(`config file: not valid YAML (line ${line}): ${problem.code}`);
  }
  return configFromObject(doc.toJS(), env, dirname(path));
}
