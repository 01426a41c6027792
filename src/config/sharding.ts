// Which shard owns a name: the first 8 bytes of the SHA-256 of the name's UTF-8 bytes, as a big-endian
// unsigned integer, modulo the number of shards.

import { createHash } from "node:crypto";
import type { AccountConfig, Config, Sharding } from "./types.js";

/**
 * The `/probe` target, and the `instance` `/sd` gives it, of the venue's public data: the market list, its
 * read's health and age. No account can take the name (account names have no "/").
 */
export const MARKET_TARGET = "venue/markets";

/**
 * The shard that owns `name` among `totalShards`. Any name (an account's, and MARKET_TARGET) is
 * placed by this one rule, so every replica agrees.
 * SHA-256 rather than kube-state-metrics' FNV-1a: FNV-1a's low bits depend only on the bytes' low
 * bits (modulo 2 it is the parity of the odd bytes, so `desk-A` and `desk-a` always share a shard),
 * and `sha256sum` lets anyone compute the shard by hand. Stable across versions, processes and machines.
 */
export function shardOf(name: string, totalShards: number): number {
  const digest = createHash("sha256").update(name, "utf8").digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(totalShards));
}

function ownsName(sharding: Sharding, name: string): boolean {
  return sharding.totalShards === 1 || shardOf(name, sharding.totalShards) === sharding.shard;
}

/** Whether this process serves the market target, and the market families on `/metrics`: one shard of a fleet does. */
export function ownsMarkets(sharding: Sharding): boolean {
  return ownsName(sharding, MARKET_TARGET);
}

/**
 * Where a configured account (or MARKET_TARGET) of another shard is served, as a probe's refusal says it
 * ("served by shard 1 of 2 (this is shard 0)"); undefined for a name this process serves or that no account has.
 */
export function servedByOtherShard(config: Config, name: string): string | undefined {
  const { shard, totalShards } = config.sharding;
  if (totalShards === 1 || (name !== MARKET_TARGET && !config.accounts.some((a) => a.name === name))) return undefined;
  const owner = shardOf(name, totalShards);
  return owner === shard ? undefined : `served by shard ${owner} of ${totalShards} (this is shard ${shard})`;
}

/** The accounts this process serves; the others belong to another replica and are never called. */
export function shardAccounts(config: Config): AccountConfig[] {
  return config.accounts.filter((a) => ownsName(config.sharding, a.name));
}
