// Builds the configuration by the settings table (flag > environment > file > default), every problem reported at once.

import { isAbsolute, resolve } from "node:path";
import { envValue, readSecret, unknownVariables, type Env } from "./env.js";
import type { ConfigFile } from "./file.js";
import { FROM_ENV, FROM_FLAG, Problems } from "./problems.js";
import { REMOVED_SETTINGS, SETTING_LIST, type SettingId, type Values } from "./settings.js";
import { DEFAULT_THRESHOLDS } from "./threshold-table.js";
import type { AccountConfig, AuthConfig, Config } from "./types.js";

/** Flag values as given on the command line, by flag name without dashes ("web.listen-address"); a repeatable flag's as a list. */
export type FlagValues = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface Sources {
  flags?: FlagValues;
  env: Env;
}

export interface Loaded {
  config: Config;
  /** Lines worth a warning (unknown or ignored variables); the configuration is usable. */
  warnings: string[];
}

/** Resolves every setting of the table, then the accounts; throws one ConfigError listing every problem. */
export function buildConfig(sources: Sources, file: ConfigFile | undefined): Loaded {
  const { env, flags = {} } = sources;
  const problems = new Problems();
  const unknown = unknownVariables(env);
  const warnings = unknown.map((u) => `${u.name}: ${u.text}`);
  for (const { key, env: name, why } of REMOVED_SETTINGS) {
    if (file?.value(key) !== undefined) warnings.push(`${key}: removed (${why}), ignored; delete it`);
    if (envValue(env, name) !== undefined) warnings.push(`${name}: removed (${why}), ignored; delete it`);
  }
  const values: Partial<Record<SettingId, unknown>> = {};
  const fromFile = new Set<SettingId>();
  const given: Partial<Record<SettingId, { name: string; order: [number, number] }>> = {};

  file?.checkKeys(problems);
  SETTING_LIST.forEach(([id, setting], index) => {
    if (setting.envAccount && file !== undefined) {
      const ignored = [setting.env, setting.secret ? `${setting.env}_FILE` : undefined].filter((n) => n !== undefined && envValue(env, n) !== undefined);
      for (const name of ignored) warnings.push(`${name}: ignored with a config file (accounts come from the file)`);
      return;
    }
    if (setting.secret) return; // read below, with its *_FILE variant
    const flag = setting.flag === undefined ? undefined : flags[setting.flag];
    const variable = setting.env === undefined ? undefined : envValue(env, setting.env);
    const inFile = setting.file && file !== undefined ? file.value(id) : undefined;
    if (flag !== undefined) {
      given[id] = { name: `--${setting.flag}`, order: [FROM_FLAG, index] };
      values[id] = problems.collect([FROM_FLAG, index], () => setting.parse(flag, `--${setting.flag}`), undefined);
    } else if (variable !== undefined) {
      given[id] = { name: setting.env!, order: [FROM_ENV, index] };
      values[id] = problems.collect([FROM_ENV, index], () => setting.parse(variable, setting.env!), undefined);
    } else if (inFile !== undefined && file !== undefined) {
      fromFile.add(id);
      values[id] = problems.collect(file.at(id), () => setting.parse(inFile, id), undefined);
    } else if (setting.required) {
      if (file !== undefined && setting.file) problems.add(id, "required", file.at(id));
      else problems.add(setting.env ?? `--${setting.flag}`, "required", [FROM_ENV, index]);
    } else {
      values[id] = setting.default;
    }
  });
  const v = values as Values;

  let accounts: AccountConfig[];
  if (file !== undefined) {
    accounts = file.accounts(env, problems, file.thresholds(problems));
  } else {
    const auth = envAuth(v, env, problems);
    const name = v["account.name"];
    const collateralIds = v["account.collateral_ids"];
    accounts =
      auth === undefined || name === undefined || collateralIds === undefined
        ? []
        : [{ name, collateralIds, auth, headers: {}, thresholds: DEFAULT_THRESHOLDS }];
  }
  // A misspelt variable explains the "required" of the one it was meant to be, and takes its place.
  for (const u of unknown) if (u.meant !== undefined) problems.misspelt(u.name, u.text, u.meant);
  // A shard at or past the total would silently serve no account; a value its own parser refused was named already.
  const [shard, total, shardGiven] = [v["sharding.shard"], v["sharding.total_shards"], given["sharding.shard"]];
  if (shard !== undefined && total !== undefined && shard >= total && shardGiven !== undefined) {
    const limit = given["sharding.total_shards"]?.name ?? "the number of shards, 1 when neither TRADING_TOTAL_SHARDS nor --total-shards is set";
    problems.add(shardGiven.name, `must be below ${limit}; shards are numbered from 0`, shardGiven.order);
  }
  problems.throwIfAny();
  // Usable, but a scrape that takes its whole deadline would be cut before its answer is written.
  const [writeTimeout, maxScrapeTimeout] = [v["web.write_timeout_seconds"], v["scrape.max_timeout_seconds"]];
  if (writeTimeout !== undefined && maxScrapeTimeout !== undefined && writeTimeout <= maxScrapeTimeout) {
    const [write, max] = [
      given["web.write_timeout_seconds"]?.name ?? "web.write_timeout_seconds",
      given["scrape.max_timeout_seconds"]?.name ?? "scrape.max_timeout_seconds",
    ];
    warnings.push(
      `${write}: ${writeTimeout} s is not above ${max} (${maxScrapeTimeout} s): a scrape that takes its whole deadline is cut before its answer is written`,
    );
  }

  const config = { accounts, venue: {}, scrape: {}, web: {}, sharding: {} } as unknown as Config;
  for (const [id, setting] of SETTING_LIST) {
    if (setting.at === undefined) continue;
    const parts = setting.at.split(".");
    const last = parts.pop()!;
    const section = parts.reduce<Record<string, unknown>>((into, part) => into[part] as Record<string, unknown>, config as unknown as Record<string, unknown>);
    section[last] = v[id];
  }
  // A web config path in the file is relative to the file's folder, as the secret files are.
  const webConfig = config.webConfigFile;
  if (webConfig !== undefined && fromFile.has("web.config_file") && file !== undefined && !isAbsolute(webConfig)) {
    config.webConfigFile = resolve(file.baseDir, webConfig);
  }
  return { config, warnings };
}

/** The environment account's credential, by TRADING_AUTH_TYPE; its secret from the variable or its *_FILE. */
function envAuth(v: Values, env: Env, problems: Problems): AuthConfig | undefined {
  const at = (id: SettingId): [number, number] => [FROM_ENV, SETTING_LIST.findIndex(([s]) => s === id)];
  const secret = (id: SettingId, name: string) => problems.collect(at(id), () => readSecret(env, name), undefined);
  switch (v["account.auth_type"]) {
    case "api_key": {
      const key = secret("account.api_key", "TRADING_API_KEY");
      const header = v["account.api_key_header"];
      return key === undefined || header === undefined ? undefined : { type: "api_key", header, key };
    }
    case "bearer": {
      const token = secret("account.bearer_token", "TRADING_BEARER_TOKEN");
      return token === undefined ? undefined : { type: "bearer", token };
    }
    case "basic": {
      const username = v["account.basic_username"];
      // A bad value was named by its parser; "required" only when the variable is not there at all.
      if (username === undefined && envValue(env, "TRADING_BASIC_USERNAME") === undefined)
        problems.add("TRADING_BASIC_USERNAME", "required with TRADING_AUTH_TYPE=basic", at("account.basic_username"));
      const password = secret("account.basic_password", "TRADING_BASIC_PASSWORD");
      return username === undefined || password === undefined ? undefined : { type: "basic", username, password };
    }
    case "none":
      return { type: "none" };
    case undefined:
      return undefined;
  }
}

/** The configuration from the environment alone (no config file): the quick start, one account. */
export function configFromEnv(env: Env): Config {
  return buildConfig({ env }, undefined).config;
}

/** Reads the sources: a YAML file when one is named (its reader loaded only then), the environment, the flags. */
export async function loadConfig(sources: Sources): Promise<Loaded> {
  const flag = sources.flags?.["config.file"];
  const path = typeof flag === "string" ? flag : envValue(sources.env, "TRADING_CONFIG_FILE");
  // yaml and zod are loaded only for a file: the environment-only exporter does without their memory.
  const file = path === undefined ? undefined : await (await import("./file.js")).readConfigFileAside(path);
  return buildConfig(sources, file);
}
