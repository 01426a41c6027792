// Builds the configuration from its sources, each setting by the table: flag > environment > file > default.
// Every problem is collected and reported at once; unknown variables and ignored ones are warnings.

import { isAbsolute, resolve } from "node:path";
import { envValue, readSecret, unknownVariables, type Env } from "./env.js";
import type { ConfigFile } from "./file.js";
import { FROM_ENV, FROM_FILE, FROM_FLAG, Problems } from "./problems.js";
import { SETTING_LIST, type SettingId, type Values } from "./settings.js";
import type { AccountConfig, Config } from "./types.js";

/** Flag values as given on the command line, by flag name without dashes ("web.listen-address"). */
export type FlagValues = Readonly<Record<string, string | undefined>>;

export interface Sources {
  flags?: FlagValues;
  env: Env;
}

export interface Loaded {
  config: Config;
  /** Lines worth a warning (unknown or ignored variables); the configuration is usable. */
  warnings: string[];
}

/** The config file named by --config.file or TRADING_CONFIG_FILE, if any. */
export function configFilePath(sources: Sources): string | undefined {
  return sources.flags?.["config.file"] ?? envValue(sources.env, "TRADING_CONFIG_FILE");
}

/** Resolves every setting of the table, then the accounts; throws one ConfigError listing every problem. */
export function buildConfig(sources: Sources, file: ConfigFile | undefined): Loaded {
  const { env } = sources;
  const flags = sources.flags ?? {};
  const problems = new Problems();
  const warnings = unknownVariables(env);
  const values: Partial<Record<SettingId, unknown>> = {};
  const fromFile = new Set<SettingId>();

  file?.checkKeys(problems);
  SETTING_LIST.forEach(([id, setting], index) => {
    if (setting.envAccount && file !== undefined) {
      const given = [setting.env, setting.secret ? `${setting.env}_FILE` : undefined].filter((n) => n !== undefined && envValue(env, n) !== undefined);
      for (const name of given) warnings.push(`${name}: ignored with a config file (accounts come from the file)`);
      return;
    }
    if (setting.secret) return; // read below, with its *_FILE variant
    const flag = setting.flag === undefined ? undefined : flags[setting.flag];
    const variable = setting.env === undefined ? undefined : envValue(env, setting.env);
    const inFile = setting.file && file !== undefined ? file.value(id) : undefined;
    if (flag !== undefined) {
      values[id] = problems.collect([FROM_FLAG, index], () => setting.parse(flag, `--${setting.flag}`), undefined);
    } else if (variable !== undefined) {
      values[id] = problems.collect([FROM_ENV, index], () => setting.parse(variable, setting.env!), undefined);
    } else if (inFile !== undefined && file !== undefined) {
      fromFile.add(id);
      values[id] = problems.collect([FROM_FILE, file.position(id)], () => setting.parse(inFile, id), undefined);
    } else if (setting.required) {
      if (file !== undefined && setting.file) problems.add(id, "required", [FROM_FILE, file.position(id)]);
      else problems.add(setting.env ?? `--${setting.flag}`, "required", [FROM_ENV, index]);
    } else {
      values[id] = setting.default;
    }
  });
  const v = values as Values;

  let accounts: AccountConfig[];
  if (file !== undefined) {
    accounts = file.accounts(env, problems);
  } else {
    const index = SETTING_LIST.findIndex(([id]) => id === "account.api_key");
    const key = problems.collect([FROM_ENV, index], () => readSecret(env, "TRADING_API_KEY"), undefined);
    accounts =
      key === undefined || v["account.name"] === undefined || v["account.collateral_ids"] === undefined || v["account.api_key_header"] === undefined
        ? []
        : [
            {
              name: v["account.name"],
              collateralIds: v["account.collateral_ids"],
              auth: { type: "api_key", header: v["account.api_key_header"], key },
              headers: {},
            },
          ];
  }
  problems.throwIfAny();

  // A web config path in the file is relative to the file's folder, as the secret files are.
  const webConfig = v["web.config_file"];
  const webConfigFile =
    webConfig !== undefined && fromFile.has("web.config_file") && file !== undefined && !isAbsolute(webConfig) ? resolve(file.baseDir, webConfig) : webConfig;
  const config: Config = {
    venue: {
      baseUrl: v["venue.base_url"]!,
      historyMaxOrders: v["venue.history_max_orders"]!,
      historyPageSize: v["venue.history_page_size"]!,
      activeOrdersLimit: v["venue.active_orders_limit"]!,
      activeOrdersLimitParam: v["venue.active_orders_limit_param"]!,
      maxBodyBytes: v["venue.max_body_bytes"]!,
      maxRetryAfterSeconds: v["venue.max_retry_after_seconds"]!,
      marketsCacheSeconds: v["venue.markets_cache_seconds"]!,
      reuseUnchangedBodies: v["venue.reuse_unchanged_bodies"]!,
    },
    accounts,
    scrape: {
      defaultTimeoutSeconds: v["scrape.default_timeout_seconds"]!,
      timeoutOffsetSeconds: v["scrape.timeout_offset_seconds"]!,
      maxTimeoutSeconds: v["scrape.max_timeout_seconds"]!,
      maxInFlight: v["scrape.max_in_flight"]!,
      maxSeries: v["scrape.max_series"]!,
    },
    listenAddress: v["web.listen_address"]!,
    logLevel: v["log.level"]!,
    logFormat: v["log.format"]!,
    webConfigFile,
  };
  return { config, warnings };
}

/** The configuration from the environment alone (no config file): the quick start, one account. */
export function configFromEnv(env: Env): Config {
  return buildConfig({ env }, undefined).config;
}

/** Reads the sources: a YAML file when one is named (its reader loaded only then), the environment, the flags. */
export async function loadConfig(sources: Sources): Promise<Loaded> {
  const path = configFilePath(sources);
  // The YAML reader and its schema (yaml, zod) are loaded only when a file is used: the
  // environment-only exporter does without their memory.
  const file = path === undefined ? undefined : (await import("./file.js")).readConfigFile(path);
  return buildConfig(sources, file);
}
