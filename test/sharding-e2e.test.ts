// Two shards of one 200-account config, each a real exporter process: /sd of the two is disjoint and
// complete, each account where the documented hash puts it, another shard's account answered like an
// unknown one without calling the venue, and each /metrics carrying only its own accounts.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { shardOf } from "../src/config/sharding.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { runExporter, startExporterChild, type ExporterChild } from "./helpers/child.js";
import { parseExposition } from "./helpers/exposition.js";
import { SIM_KEY } from "./helpers/stack.js";

const ACCOUNTS = Array.from({ length: 200 }, (_, i) => `desk-${String(i).padStart(3, "0")}`);
const dir = mkdtempSync(join(tmpdir(), "te-shards-"));
const configPath = join(dir, "config.yml");

let venue: RunningSimulator | undefined;
const shards: ExporterChild[] = [];

/** The account names a shard's /sd lists, each checked to be a /probe target of that shard. */
async function discovered(shard: ExporterChild): Promise<string[]> {
  const res = await fetch(new URL("/sd", shard.url));
  expect(res.status).toBe(200);
  const groups = (await res.json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
  for (const g of groups) {
    expect(g.targets).toEqual([new URL(shard.url).host]);
    expect(g.labels.__metrics_path__).toBe("/probe");
  }
  // The venue's market target is one more group on one shard (market-target.test.ts); here, the accounts.
  return groups.filter((g) => g.labels.__meta_trading_target_kind === "account").map((g) => g.labels.__param_target!);
}

const requestsTo = (v: RunningSimulator) => Object.values(v.stats().requests).reduce((a, b) => a + b, 0);

describe("two shards of one 200-account config", () => {
  beforeAll(async () => {
    venue = await startSimulator({ seed: 7, tickMs: 0, apiKey: SIM_KEY });
    // Every account uses the simulator's one key: the split is by name, whatever the venue serves.
    writeFileSync(join(dir, "venue.key"), SIM_KEY);
    const accounts = ACCOUNTS.map((name) => ({ name, collateral_ids: ["USDC"], auth: { type: "api_key", key_file: "venue.key" } }));
    writeFileSync(configPath, stringify({ venue: { base_url: venue.url }, accounts }));
    // Every scrape collects, so the request counts below are this scrape's alone.
    const env = {
      TRADING_CONFIG_FILE: configPath,
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
      TRADING_TOTAL_SHARDS: "2",
      TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0",
    };
    // Shard 0 by number; shard 1 by the StatefulSet pod name the downward API would pass.
    shards.push(await startExporterChild({ ...env, TRADING_SHARD: "0" }));
    shards.push(await startExporterChild({ ...env, TRADING_SHARD: "trading-exporter-1" }));
  }, 60_000);

  afterAll(async () => {
    for (const shard of shards) {
      shard.child.kill("SIGTERM");
      await shard.exited;
    }
    await venue?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("/sd: the two lists are disjoint, cover all 200 accounts, and each account sits where the documented hash puts it", async () => {
    const [zero, one] = await Promise.all(shards.map(discovered));
    expect(zero!.length).toBeGreaterThan(0);
    expect(one!.length).toBeGreaterThan(0);
    expect(zero!.filter((name) => one!.includes(name))).toEqual([]);
    expect([...zero!, ...one!].sort()).toEqual(ACCOUNTS);
    expect(zero!.every((name) => shardOf(name, 2) === 0)).toBe(true);
    expect(one!.every((name) => shardOf(name, 2) === 1)).toBe(true);
  });

  it("/probe: a shard serves its own account, and answers another shard's with a 400 naming the shard that serves it, without calling the venue", async () => {
    const [zero, one] = await Promise.all(shards.map(discovered));
    const own = await fetch(new URL(`/probe?target=${zero![0]}`, shards[0]!.url));
    expect(own.status).toBe(200);
    expect(parseExposition(await own.text()).find((s) => s.name === "trading_up")?.labels.account).toBe(zero![0]);

    venue!.resetStats();
    for (const [shard, foreign, here] of [
      [shards[0]!, one![0]!, 0],
      [shards[1]!, zero![0]!, 1],
    ] as const) {
      const res = await fetch(new URL(`/probe?target=${foreign}`, shard.url));
      expect(res.status).toBe(400);
      expect(await res.text()).toBe(`target: served by shard ${1 - here} of 2 (this is shard ${here})\n`);
      const unknown = await fetch(new URL("/probe?target=not-an-account", shard.url));
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toBe("target: not a configured account name\n");
    }
    expect(requestsTo(venue!)).toBe(0);
  });

  it("/metrics: each shard collects only its own accounts, every one of them up", async () => {
    for (const [index, shard] of shards.entries()) {
      const own = ACCOUNTS.filter((name) => shardOf(name, 2) === index);
      expect(own.length).toBeLessThan(ACCOUNTS.length);
      venue!.resetStats();
      const res = await fetch(new URL("/metrics", shard.url));
      expect(res.status).toBe(200);
      const up = parseExposition(await res.text()).filter((s) => s.name === "trading_up");
      expect(up.map((s) => s.labels.account).sort()).toEqual(own);
      expect(up.every((s) => s.value === 1)).toBe(true);
      // One account-info call per own account (one collateral each): the other shard's are never called.
      expect(venue!.stats().requests.account_info).toBe(own.length);
    }
  }, 60_000);

  it("--config.check --total-shards=2 prints each account's shard, by the documented hash", async () => {
    const run = await runExporter({ TRADING_CONFIG_FILE: configPath }, ["--config.check", "--total-shards=2", "--shard=1"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n").filter(Boolean);
    const ones = ACCOUNTS.filter((name) => shardOf(name, 2) === 1).length;
    expect(lines[1]).toBe(`shard 1 of 2 serves ${ones} of 200 account(s); the first 8 bytes of each name's SHA-256, mod 2:`);
    expect(lines.slice(2)).toEqual([
      ...ACCOUNTS.map((name) => `  ${name}: shard ${shardOf(name, 2)}`),
      `the venue's market list (venue/markets, by the same hash): shard ${shardOf("venue/markets", 2)}`,
    ]);
  });
});
