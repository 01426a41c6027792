// What --config.check says of a split over replicas: each account's shard, so it can be checked before deploying.

import { MARKET_TARGET, shardAccounts, shardOf } from "../config/sharding.js";
import type { Config } from "../config/types.js";

/** Nothing without sharding; else this shard's share, then one line per account with the shard that owns it, then the market target's. */
export function shardLines(config: Config): string[] {
  const { shard, totalShards } = config.sharding;
  if (totalShards === 1) return [];
  return [
    `shard ${shard} of ${totalShards} serves ${shardAccounts(config).length} of ${config.accounts.length} account(s); the first 8 bytes of each name's SHA-256, mod ${totalShards}:`,
    ...config.accounts.map((a) => `  ${a.name}: shard ${shardOf(a.name, totalShards)}`),
    `the venue's market list (${MARKET_TARGET}, by the same hash): shard ${shardOf(MARKET_TARGET, totalShards)}`,
  ];
}
