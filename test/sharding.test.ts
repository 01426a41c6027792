// Which shard owns an account: the documented rule (first 8 bytes of SHA-256, big-endian, mod N),
// stable for fixed names, computed independently by the python3 one-liner of docs/deployment.md, and balanced.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { MARKET_TARGET, servedByOtherShard, shardOf } from "../src/config/sharding.js";
import { parseShard } from "../src/config/values.js";
import type { Config } from "../src/config/types.js";

/** Fixed names and their shards for 2, 3 and 7 shards, computed once with python3's hashlib; a change here moves users' accounts. */
const FIXED: Array<[name: string, shards: [number, number, number]]> = [
  ["alpha", [0, 2, 0]],
  ["beta", [1, 0, 3]],
  ["main", [1, 0, 5]],
  ["desk-A", [1, 2, 5]],
  ["desk-a", [1, 0, 0]],
  ["trading:eu.1", [1, 2, 3]],
];

/** The command in docs/deployment.md that computes a name's shard without the exporter. */
function readmeOneLiner(): string {
  const readme = readFileSync(new URL("../docs/deployment.md", import.meta.url), "utf8");
  const line = readme.split("\n").find((l) => l.startsWith("python3 -c ") && l.includes("sha256"));
  if (line === undefined) throw new Error("docs/deployment.md lacks the python3 one-liner that computes a shard");
  const program = /^python3 -c '([^']+)' NAME N$/.exec(line)?.[1];
  if (program === undefined) throw new Error(`docs/deployment.md's one-liner is not of the form python3 -c '...' NAME N: ${line}`);
  return program;
}

describe("shardOf", () => {
  it.each(FIXED)("%s: a fixed shard for 2, 3 and 7 shards", (name, shards) => {
    expect([2, 3, 7].map((n) => shardOf(name, n))).toEqual(shards);
  });

  it("agrees with the documented python3 one-liner, an implementation of its own", () => {
    const program = readmeOneLiner();
    // Seven shards only: each run starts a Python, and 7 already tells every fixed name apart from a wrong rule.
    for (const [name, shards] of FIXED) expect(Number(execFileSync("python3", ["-c", program, name, "7"], { encoding: "utf8" }).trim()), name).toBe(shards[2]);
  });

  it("agrees with sha256sum's first 16 hex digits, mod N", () => {
    for (const [name, shards] of FIXED) {
      const hex = execFileSync("sha256sum", { input: name, encoding: "utf8" }).slice(0, 16);
      expect(
        [2n, 3n, 7n].map((n) => Number(BigInt(`0x${hex}`) % n)),
        name,
      ).toEqual(shards);
    }
  });

  it("puts everything in shard 0 of 1", () => {
    expect(FIXED.map(([name]) => shardOf(name, 1))).toEqual(FIXED.map(() => 0));
  });

  it.each([2, 3, 4, 8, 10])("spreads 10,000 look-alike names over %i shards within 10%% of an even split", (n) => {
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < 10_000; i++) counts[shardOf(`desk-${i}`, n)]! += 1;
    const even = 10_000 / n;
    for (const count of counts) expect(Math.abs(count - even) / even).toBeLessThan(0.1);
  });

  it("splits names that differ only in the case of a letter (FNV-1a mod 2 would not)", () => {
    const pairs = Array.from({ length: 26 }, (_, i) => [`desk-${String.fromCharCode(65 + i)}`, `desk-${String.fromCharCode(97 + i)}`] as const);
    expect(pairs.filter(([upper, lower]) => shardOf(upper, 2) !== shardOf(lower, 2)).length).toBeGreaterThan(5);
  });
});

describe("parseShard", () => {
  it.each([
    ["0", 0],
    ["3", 3],
    [" 12 ", 12],
    ["trading-exporter-2", 2],
    ["trading-exporter-shards-10", 10],
    ["exporter.eu-0", 0],
  ])("reads %j as shard %i", (text, shard) => {
    expect(parseShard(text, "TRADING_SHARD")).toBe(shard);
  });

  it.each(["", "-1", "x", "trading-exporter", "trading-exporter-", "1.5", "2-", "pod-1x", "9999999999"])(
    "refuses %j in one line naming the variable, not the value",
    (text) => {
      expect(() => parseShard(text, "TRADING_SHARD")).toThrowError(
        new ConfigError("TRADING_SHARD: expected a shard number from 0, or a StatefulSet pod name ending in -NUMBER"),
      );
    },
  );
});

describe("servedByOtherShard", () => {
  /** Only the fields it reads: the accounts' names and the sharding. */
  const config = (shard: number, totalShards: number) =>
    ({ accounts: [{ name: "alpha" }, { name: "main" }], sharding: { shard, totalShards } }) as unknown as Config;

  it("names the shard of another shard's account; nothing for this shard's, an unknown name, or one shard", () => {
    // "main" is shard 1 of 2, "alpha" shard 0 (FIXED above).
    expect(servedByOtherShard(config(0, 2), "main")).toBe("served by shard 1 of 2 (this is shard 0)");
    expect(servedByOtherShard(config(1, 2), "alpha")).toBe("served by shard 0 of 2 (this is shard 1)");
    expect(servedByOtherShard(config(1, 2), "main")).toBeUndefined();
    expect(servedByOtherShard(config(0, 2), "beta")).toBeUndefined();
    expect(servedByOtherShard(config(0, 1), "main")).toBeUndefined();
  });

  it("names the shard of the market target", () => {
    const owner = shardOf(MARKET_TARGET, 2);
    expect(servedByOtherShard(config(1 - owner, 2), MARKET_TARGET)).toBe(`served by shard ${owner} of 2 (this is shard ${1 - owner})`);
    expect(servedByOtherShard(config(owner, 2), MARKET_TARGET)).toBeUndefined();
  });
});
