// Builds the configuration by the settings table (flag > environment > file > default), every problem reported at once.

import { isAbsolute, resolve } from "node:path";
import { ConfigError, ENV_ORDER, type Order, nearest, Problems, valueAt } from "./errors.js";
import type { ConfigFile } from "./file.js";
import { type Secret, secretFromFile, secretFromText } from "./secret.js";
import { knownVariables, REMOVED_SETTINGS, SETTING_LIST, type SettingId, type Values } from "./settings.js";
import { DEFAULT_THRESHOLDS } from "./threshold-table.js";
import { AUTH_SCHEMES, authOf } from "./auth-schemes.js";
import type { AccountConfig, Config } from "./types.js";

type Env = NodeJS.ProcessEnv;

/** Flag values as given on the command line, by flag name without dashes ("web.listen-address"); a repeatable flag's as a list. */
export type FlagValues = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface Loaded {
  config: Config;
  /** Lines worth a warning (unknown or ignored variables); the configuration is usable. */
  warnings: string[];
}

export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

function readSecret(env: Env, name: string): Secret {
  const [direct, file] = [env[name], env[`${name}_FILE`]];
  if (direct !== undefined && file !== undefined) throw new ConfigError(`${name} and ${name}_FILE: give one, not both`);
  if (direct !== undefined) return secretFromText(direct, name);
  if (file === undefined) throw new ConfigError(`${name} or ${name}_FILE: required`);
  return secretFromFile(file, `${name}_FILE`);
}

function envAccount(v: Values, env: Env, problems: Problems): AccountConfig[] {
  const order = (variable: string) => ENV_ORDER + SETTING_LIST.findIndex(([, s]) => s.env === variable);
  const type = v["account.auth_type"];
  const username = () => {
    // A bad value was named by its parser; "required" only when the variable is not there at all.
    if (envValue(env, "TRADING_BASIC_USERNAME") === undefined)
      problems.add("TRADING_BASIC_USERNAME", `required with TRADING_AUTH_TYPE=${type}`, order("TRADING_BASIC_USERNAME"));
    return v["account.basic_username"];
  };
  const secret = (name: string) => () => problems.collect(order(name), () => readSecret(env, name), undefined);
  const auth = type && authOf(type, () => v["account.api_key_header"], username, secret(AUTH_SCHEMES[type].secretEnv ?? ""));
  const [name, collateralIds] = [v["account.name"], v["account.collateral_ids"]];
  if (auth === undefined || name === undefined || collateralIds === undefined) return [];
  return [{ name, collateralIds, auth, headers: {}, thresholds: DEFAULT_THRESHOLDS }];
}

/** A TRADING_ variable no setting reads (a misspelling takes the place of what it meant), and settings since removed. */
function unknownAndRemoved(env: Env, file: ConfigFile | undefined, problems: Problems, warnings: string[]): void {
  const known = knownVariables();
  const unknown = Object.keys(env).filter((n) => n.startsWith("TRADING_") && !known.includes(n) && !REMOVED_SETTINGS.some((r) => r.env === n));
  for (const name of unknown.sort()) {
    const meant = nearest(name, known);
    const text = `unknown variable, ignored${meant === undefined ? "" : ` (did you mean ${meant}?)`}`;
    warnings.push(`${name}: ${text}`);
    // A misspelt variable explains the "required" of the one it was meant to be, and takes its place.
    if (meant !== undefined) problems.misspelt(name, text, meant);
  }
  for (const removed of REMOVED_SETTINGS) {
    const { key, env: name, why } = removed;
    // A removed flag is refused by the flag parser (cli/flags.ts), which knows it too.
    const given = [
      [valueAt(file?.data, key.split(".")), key, key.split(".")],
      [envValue(env, name), name, ENV_ORDER],
    ] as const;
    for (const [value, where, order] of given) {
      if (value === undefined) continue;
      if ("refused" in removed) problems.add(where, `removed: ${why}; delete it`, order);
      else warnings.push(`${where}: removed (${why}), ignored; delete it`);
    }
  }
}

/** Resolves every setting of the table, then the accounts; throws one ConfigError listing every problem. */
export function buildConfig({ env, flags = {} }: { env: Env; flags?: FlagValues }, file: ConfigFile | undefined): Loaded {
  const problems = new Problems(file?.data);
  const warnings: string[] = [];
  unknownAndRemoved(env, file, problems, warnings);
  const values: Partial<Record<SettingId, unknown>> = {};
  const given: Partial<Record<SettingId, { name: string; order: Order }>> = {};

  file?.checkKeys(problems);
  SETTING_LIST.forEach(([id, setting], index) => {
    if (setting.envAccount && file !== undefined) {
      const ignored = [setting.env, setting.secret ? `${setting.env}_FILE` : undefined].filter((n) => n !== undefined && envValue(env, n) !== undefined);
      for (const name of ignored) warnings.push(`${name}: ignored with a config file (accounts come from the file)`);
      return;
    }
    if (setting.secret) return; // read with its account, as is its *_FILE variant
    const flag = setting.flag === undefined ? undefined : flags[setting.flag];
    const variable = setting.env === undefined ? undefined : envValue(env, setting.env);
    const [value, name, order]: [unknown, string, Order] =
      flag !== undefined
        ? [flag, `--${setting.flag}`, index]
        : variable !== undefined
          ? [variable, setting.env!, ENV_ORDER + index]
          : [setting.file ? valueAt(file?.data, id.split(".")) : undefined, id, id.split(".")];
    if (value !== undefined) {
      given[id] = { name, order };
      values[id] = problems.collect(order, () => setting.parse(value, name), undefined);
    } else if (setting.required) {
      if (file !== undefined && setting.file) problems.add(id, "required", order);
      else problems.add(setting.env ?? `--${setting.flag}`, "required", ENV_ORDER + index);
    } else {
      values[id] = setting.default;
    }
  });
  const v = values as Values;
  const accounts = file === undefined ? envAccount(v, env, problems) : file.accounts(env, problems);
  // A shard at or past the total would silently serve no account; a value its own parser refused was named already.
  const [shard, total, shardGiven] = [v["sharding.shard"], v["sharding.total_shards"], given["sharding.shard"]];
  if (shard !== undefined && total !== undefined && shard >= total && shardGiven !== undefined) {
    const limit = given["sharding.total_shards"]?.name ?? "the number of shards, 1 when neither TRADING_TOTAL_SHARDS nor --total-shards is set";
    problems.add(shardGiven.name, `must be below ${limit}; shards are numbered from 0`, shardGiven.order);
  }
  problems.throwIfAny();
  // Usable, but a scrape that takes its whole deadline would be cut before its answer is written.
  const [write, max, nameOf] = [v["web.write_timeout_seconds"], v["scrape.max_timeout_seconds"], (id: SettingId) => given[id]?.name ?? id];
  if (write !== undefined && max !== undefined && write <= max) {
    const [writeName, maxName] = [nameOf("web.write_timeout_seconds"), nameOf("scrape.max_timeout_seconds")];
    warnings.push(`${writeName}: ${write} s is not above ${maxName} (${max} s): a scrape that takes its whole deadline is cut before its answer is written`);
  }

  const config: Record<string, unknown> = { accounts, venue: {}, scrape: {}, web: {}, sharding: {} };
  for (const [id, { at }] of SETTING_LIST) {
    const [section, field] = at?.split(".") ?? [];
    if (section !== undefined) ((field === undefined ? config : config[section]) as Record<string, unknown>)[field ?? section] = v[id];
  }
  // A web config path in the file is relative to the file's folder, as the secret files are.
  const webConfig = v["web.config_file"];
  if (webConfig !== undefined && file !== undefined && Array.isArray(given["web.config_file"]?.order) && !isAbsolute(webConfig))
    config.webConfigFile = resolve(file.baseDir, webConfig);
  return { config: config as unknown as Config, warnings };
}

/** Reads the sources: a YAML file when one is named (its reader loaded only then), the environment, the flags; `serving`: a reload. */
export async function loadConfig(sources: Parameters<typeof buildConfig>[0], serving = false): Promise<Loaded> {
  const flag = sources.flags?.["config.file"];
  const path = typeof flag === "string" ? flag : envValue(sources.env, "TRADING_CONFIG_FILE");
  // yaml and zod are loaded only for a file: the environment-only exporter does without their memory.
  const file = path === undefined ? undefined : await (await import("./file.js")).readConfigFile(path, serving);
  return buildConfig(sources, file);
}
