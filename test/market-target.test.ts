// The venue's public market list is a target of its own: 20 accounts on a venue of 304 markets, as
// real exporter processes. Across every target /sd lists each market series appears once, an
// account's answer does not grow with the market count, /metrics keeps each market once, and two
// shards together serve each market exactly once.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKET_TARGET, shardOf } from "../src/config/sharding.js";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { startExporterChild, type ExporterChild } from "./helpers/child.js";
import { parseExposition, type ParsedSample } from "./helpers/exposition.js";
import { SIM_KEY } from "./helpers/stack.js";

const ACCOUNTS = 20;
const collaterals = [{ id: "USDC", shape: "detailed" as const }];
const dir = mkdtempSync(join(tmpdir(), "te-market-target-"));
const venues: RunningSimulator[] = [];
const exporters: ExporterChild[] = [];

/** A venue of `markets` markets and its exporter (shard `shard` of `total` when given). */
async function deskOf(markets: number): Promise<{ venue: RunningSimulator; config: string }> {
  // Small accounts (3 positions, 3 active orders, no history). An account's orders are its own series,
  // one set per market it trades in: 20 orders spread over 20 of 304 markets rightly take more lines
  // than over 4. The footprint is held alike here so that only the venue's market count varies.
  const venue = await startSimulator({
    seed: 11,
    tickMs: 0,
    apiKey: SIM_KEY,
    accounts: ACCOUNTS,
    markets,
    collaterals,
    positions: 3,
    activeOrders: 3,
    historyOrders: 0,
  });
  venues.push(venue);
  const config = join(dir, `config-${markets}.yml`);
  writeFileSync(config, exporterConfigYaml({ accounts: ACCOUNTS, apiKey: SIM_KEY, apiKeyHeader: "X-Api-Key", collaterals }, venue.url.replace(/\/$/, "")));
  return { venue, config };
}

async function exporterFor(config: string, env: Record<string, string> = {}): Promise<ExporterChild> {
  const exporter = await startExporterChild({ TRADING_CONFIG_FILE: config, TRADING_LISTEN_ADDRESS: "127.0.0.1:0", ...env });
  exporters.push(exporter);
  return exporter;
}

interface Target {
  name: string;
  kind: string;
  samples: ParsedSample[];
}

/** Every target a shard's /sd lists, scraped as Prometheus would scrape it. */
async function scrapeTargets(exporter: ExporterChild): Promise<Target[]> {
  const res = await fetch(new URL("/sd", exporter.url));
  expect(res.status).toBe(200);
  const groups = (await res.json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
  return Promise.all(
    groups.map(async (g) => {
      const url = new URL(`http://${g.targets[0]}${g.labels.__metrics_path__}`);
      url.searchParams.set("target", g.labels.__param_target!);
      const answer = await fetch(url);
      expect(answer.status, g.labels.__param_target).toBe(200);
      return { name: g.labels.__param_target!, kind: g.labels.__meta_trading_target_kind!, samples: parseExposition(await answer.text()) };
    }),
  );
}

async function scrapeMetrics(exporter: ExporterChild): Promise<ParsedSample[]> {
  const res = await fetch(new URL("/metrics", exporter.url));
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

const isMarket = (s: ParsedSample) => s.name.startsWith("trading_market_") && s.name !== "trading_market_list_age_seconds";
const seriesKey = (s: ParsedSample) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;

/** How often each market series occurs over the samples given. */
function marketSeriesCounts(samples: ParsedSample[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of samples.filter(isMarket)) counts.set(seriesKey(s), (counts.get(seriesKey(s)) ?? 0) + 1);
  return counts;
}

/** The venue's market ids, read from its public list as the exporter reads it. */
async function venueMarketIds(venue: RunningSimulator): Promise<string[]> {
  const markets = (await (await fetch(new URL("/v1/public/markets", venue.url))).json()) as Array<{ id: string }>;
  return markets.map((m) => m.id).sort();
}

const infoIds = (samples: ParsedSample[]) =>
  samples
    .filter((s) => s.name === "trading_market_info")
    .map((s) => s.labels.market_id!)
    .sort();

let big: { venue: RunningSimulator; config: string };
let small: { venue: RunningSimulator; config: string };

describe("the market list as a target of its own (20 accounts, 304 markets)", () => {
  beforeAll(async () => {
    big = await deskOf(304);
    small = await deskOf(4);
  }, 60_000);

  afterAll(async () => {
    for (const e of exporters) {
      e.child.kill("SIGTERM");
      await e.exited;
    }
    for (const v of venues) await v.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("across every target /sd lists, each market series appears exactly once and every market is present", async () => {
    const exporter = await exporterFor(big.config);
    const targets = await scrapeTargets(exporter);
    expect(targets.filter((t) => t.kind === "account")).toHaveLength(ACCOUNTS);
    const markets = targets.filter((t) => t.kind === "markets");
    expect(markets.map((t) => t.name)).toEqual([MARKET_TARGET]);

    const counts = marketSeriesCounts(targets.flatMap((t) => t.samples));
    expect(counts.size).toBeGreaterThan(304);
    expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    const ids = await venueMarketIds(big.venue);
    expect(ids).toHaveLength(304);
    expect(infoIds(markets[0]!.samples)).toEqual(ids);
    // The market target carries its read's health and age; no account's answer carries either.
    const own = markets[0]!.samples;
    expect(own.find((s) => s.name === "trading_scrape_success")?.labels).toEqual({ endpoint: "markets" });
    expect(own.some((s) => s.name === "trading_market_list_age_seconds")).toBe(true);
    expect(own.some((s) => s.name === "trading_up")).toBe(false);
    for (const t of targets.filter((x) => x.kind === "account")) {
      expect(
        t.samples.filter((s) => s.name.startsWith("trading_market_")),
        t.name,
      ).toEqual([]);
      expect(
        t.samples.some((s) => s.name === "trading_scrape_success" && s.labels.endpoint === "markets"),
        t.name,
      ).toBe(false);
    }
  }, 60_000);

  it("an account's answer at 304 markets is within 50 lines of its answer at 4 markets, and keeps its positions and their liquidation distances", async () => {
    const [large, few] = await Promise.all([exporterFor(big.config), exporterFor(small.config)]);
    const name = (await scrapeTargets(large)).find((t) => t.kind === "account")!.name;
    const answer = async (exporter: ExporterChild) => {
      const res = await fetch(new URL(`/probe?target=${encodeURIComponent(name)}`, exporter.url));
      expect(res.status).toBe(200);
      const text = await res.text();
      return { lines: text.split("\n").filter((l) => l !== "").length, samples: parseExposition(text) };
    };
    const [at304, at4] = await Promise.all([answer(large), answer(few)]);
    expect(Math.abs(at304.lines - at4.lines), `${at304.lines} lines at 304 markets, ${at4.lines} at 4`).toBeLessThanOrEqual(50);
    for (const { samples } of [at304, at4]) {
      const positions = samples.filter((s) => s.name === "trading_position_size");
      expect(positions.length).toBeGreaterThan(0);
      const key = (s: ParsedSample) => `${s.labels.collateral_id}/${s.labels.market_id}/${s.labels.direction}`;
      // Every position keeps its liquidation distance, and the implied margin the cached market list gives it.
      expect(
        samples
          .filter((s) => s.name === "trading_position_liquidation_distance_ratio")
          .map(key)
          .sort(),
      ).toEqual(positions.map(key).sort());
      expect(
        samples
          .filter((s) => s.name === "trading_position_initial_margin_requirement")
          .map(key)
          .sort(),
      ).toEqual(positions.map(key).sort());
      expect(samples.find((s) => s.name === "trading_up")?.value).toBe(1);
    }
  }, 60_000);

  it("/metrics (every account in one target) keeps each market exactly once", async () => {
    const exporter = await exporterFor(big.config);
    const samples = await scrapeMetrics(exporter);
    const counts = marketSeriesCounts(samples);
    expect(counts.size).toBeGreaterThan(304);
    expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(infoIds(samples)).toEqual(await venueMarketIds(big.venue));
    expect(samples.filter((s) => s.name === "trading_up")).toHaveLength(ACCOUNTS);
  }, 60_000);

  it("two shards together serve each market exactly once, from the shard the documented hash names, through /sd and through /metrics", async () => {
    const owner = shardOf(MARKET_TARGET, 2);
    const shards = await Promise.all([0, 1].map((i) => exporterFor(big.config, { TRADING_TOTAL_SHARDS: "2", TRADING_SHARD: String(i) })));
    const ids = await venueMarketIds(big.venue);

    const perShard = await Promise.all(shards.map(scrapeTargets));
    expect(perShard.map((targets) => targets.some((t) => t.kind === "markets"))).toEqual([owner === 0, owner === 1]);
    expect(perShard.flat().filter((t) => t.kind === "account")).toHaveLength(ACCOUNTS);
    const viaProbe = marketSeriesCounts(perShard.flat().flatMap((t) => t.samples));
    expect([...viaProbe.values()].every((n) => n === 1)).toBe(true);
    expect(infoIds(perShard.flat().flatMap((t) => t.samples))).toEqual(ids);

    const metrics = await Promise.all(shards.map(scrapeMetrics));
    expect(metrics.map((samples) => samples.some(isMarket))).toEqual([owner === 0, owner === 1]);
    const viaMetrics = marketSeriesCounts(metrics.flat());
    expect([...viaMetrics.values()].every((n) => n === 1)).toBe(true);
    expect(infoIds(metrics.flat())).toEqual(ids);

    // The other shard refuses the market target, naming the shard that serves it.
    const other = await fetch(new URL(`/probe?target=${encodeURIComponent(MARKET_TARGET)}`, shards[1 - owner]!.url));
    expect(other.status).toBe(400);
    expect(await other.text()).toBe(`target: served by shard ${owner} of 2 (this is shard ${1 - owner})\n`);
  }, 60_000);
});
