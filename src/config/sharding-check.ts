// The one check that needs both sharding settings: the shard must be one of the total.

import { envValue, type Env } from "./env.js";
import { FROM_ENV, FROM_FLAG, type Problems } from "./problems.js";
import { SETTING_LIST, SETTINGS, type Values } from "./settings.js";
import type { Setting } from "./setting.js";

/** How a setting was given, as its line should start: the flag if given, else the variable; undefined for its default. */
function givenAs(
  setting: Setting<unknown>,
  flags: Readonly<Record<string, string | readonly string[] | undefined>>,
  env: Env,
): { name: string; from: number } | undefined {
  if (setting.flag !== undefined && flags[setting.flag] !== undefined) return { name: `--${setting.flag}`, from: FROM_FLAG };
  if (setting.env !== undefined && envValue(env, setting.env) !== undefined) return { name: setting.env, from: FROM_ENV };
  return undefined;
}

/**
 * A shard at or past the total would serve no account at all, silently: refused, naming the shard as
 * given and the total it must stay under. Values that failed their own parser were named already.
 */
export function checkSharding(v: Values, flags: Readonly<Record<string, string | readonly string[] | undefined>>, env: Env, problems: Problems): void {
  const shard = v["sharding.shard"];
  const total = v["sharding.total_shards"];
  if (shard === undefined || total === undefined || shard < total) return;
  const shardGiven = givenAs(SETTINGS["sharding.shard"], flags, env);
  const totalGiven = givenAs(SETTINGS["sharding.total_shards"], flags, env);
  if (shardGiven === undefined) return; // the default shard, 0, is below every total
  const index = SETTING_LIST.findIndex(([id]) => id === "sharding.shard");
  const limit = totalGiven === undefined ? "the number of shards, 1 when neither TRADING_TOTAL_SHARDS nor --total-shards is set" : totalGiven.name;
  problems.add(shardGiven.name, `must be below ${limit}; shards are numbered from 0`, [shardGiven.from, index]);
}
