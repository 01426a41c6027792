// Which shard owns a name: the first 8 bytes of its UTF-8 SHA-256, big-endian, modulo the number of shards.

import { createHash } from "node:crypto";
import type { AccountConfig, Config } from "./types.js";

/** The `/probe` target of the venue's market list; no account can take the name (account names have no "/"). */
export const MARKET_TARGET = "venue/markets";

/** SHA-256, not FNV-1a as kube-state-metrics: FNV-1a's low bits follow the bytes' (`desk-A`, `desk-a` share a shard); sha256sum checks it. */
export function shardOf(name: string, totalShards: number): number {
  return Number(createHash("sha256").update(name, "utf8").digest().readBigUInt64BE(0) % BigInt(totalShards));
}

function ownsName(sharding: Config["sharding"], name: string): boolean {
  return sharding.totalShards === 1 || shardOf(name, sharding.totalShards) === sharding.shard;
}

/** Whether this process serves the market target, and the market families on `/metrics`: one shard of a fleet does. */
export function ownsMarkets(sharding: Config["sharding"]): boolean {
  return ownsName(sharding, MARKET_TARGET);
}

/** A probe's refusal for a configured name of another shard ("served by shard 1 of 2 (this is shard 0)"), else undefined. */
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

/** What --config.check says of a split: nothing without one; else this shard's share, each account's shard and the market target's. */
export function shardLines(config: Config): string[] {
  const { shard, totalShards } = config.sharding;
  if (totalShards === 1) return [];
  return [
    `shard ${shard} of ${totalShards} serves ${shardAccounts(config).length} of ${config.accounts.length} account(s); the first 8 bytes of each name's SHA-256, mod ${totalShards}:`,
    ...config.accounts.map((a) => `  ${a.name}: shard ${shardOf(a.name, totalShards)}`),
    `the venue's market list (${MARKET_TARGET}, by the same hash): shard ${shardOf(MARKET_TARGET, totalShards)}`,
  ];
}
