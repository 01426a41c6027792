// `npm run bench:storms`: what a client or a venue can send that costs the exporter CPU, and whether its health path
// stays quick meanwhile. Four storms, each on a fresh exporter at its shipped settings, /-/healthy asked every 100 ms:
// - a `X-Prometheus-Scrape-Timeout-Seconds` of 16,000 digits and an x, 4 requests a second for 10 s
//   (goal: under 5 ms of CPU a request, /-/healthy under 100 ms);
// - a venue whose every number over 2,000 positions is 399 digits and an x, ten scrapes (goal: under 5 ms of CPU a
//   field, /-/healthy under 100 ms);
// - 200 concurrent `POST /-/reload`, five times, and SIGHUP 10 a second for 20 s, while 20 accounts are probed
//   (goal: probe p50 under 1 s, every answer 200, /-/healthy under 200 ms, RSS after within 10 % of before).
// The venue sits 150 ms away. BENCH_STORMS picks some (header,numbers,post,sighup). BENCH_BASE=DIR (another build's dist folder) runs that build the same way after each.
// A benchmark, not a test.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { benchNodeArgs, type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile, rssMB } from "./measure.js";
import { KEY, table } from "./shared.js";
import { deskSimulatorArgs, startSimulatorProcess } from "./simulator-process.js";

const THIS = new URL("../../dist", import.meta.url).pathname;
const VENUE_MS = 150;
const ACCOUNTS = 20;
/** BENCH_STORMS: the storms to run, of header, numbers, post and sighup (all by default). */
const runs = (storm: string) => (process.env.BENCH_STORMS ?? "header,numbers,post,sighup").split(",").includes(storm);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One GET or POST: its status and milliseconds (status 0: no answer in 15 s). */
function ask(url: URL, method = "GET", headers: Record<string, string> = {}): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent: false, timeout: 15_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

/** Asks /-/healthy every 100 ms until `stop()`, which resolves with the slowest answer's ms. */
function watchHealth(exporter: ExporterProcess): () => Promise<number> {
  const url = new URL("-/healthy", exporter.url);
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const [answer] = await Promise.all([ask(url), pause(100)]);
      slowest = Math.max(slowest, answer.status === 200 ? answer.ms : 15_000);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return slowest;
  };
}

type Row = [storm: string, build: string, ...figures: string[]];

async function headerStorm(build: string, dist: string, venue: string): Promise<Row> {
  const exporter = await startExporterProcess(
    { TRADING_BASE_URL: venue, TRADING_API_KEY: KEY, TRADING_API_KEY_HEADER: "X-Api-Key", TRADING_COLLATERAL_IDS: "USDC" },
    benchNodeArgs(),
    `${dist}/main.js`,
  );
  try {
    const url = new URL("metrics", exporter.url);
    await ask(url);
    const health = watchHealth(exporter);
    // The same 10 s with /-/healthy alone: what the exporter spends anyway, taken off.
    const idleStart = cpuMs(exporter.pid);
    await pause(10_000);
    const idle = cpuMs(exporter.pid) - idleStart;
    const before = cpuMs(exporter.pid);
    const header = { "x-prometheus-scrape-timeout-seconds": `${"1".repeat(16_000)}x` };
    const sent: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++) {
      sent.push(ask(url, "GET", header));
      await pause(250);
    }
    await Promise.all(sent);
    const cpu = (cpuMs(exporter.pid) - before - idle) / sent.length;
    const slowest = await health();
    return [
      "16,000-digit timeout header, 4/s",
      build,
      `${cpu.toFixed(1)} ms CPU a request`,
      `${Math.round(slowest)} ms`,
      cpu < 5 && slowest < 100 ? "met" : "MISSED",
    ];
  } finally {
    await exporter.close();
  }
}

/** A venue 150 ms away whose account lists 2,000 positions, every number in them 399 digits and an x. */
async function craftedVenue(): Promise<{ url: string; close(): Promise<void> }> {
  const crafted = `${"9".repeat(399)}x`;
  const fields = ["size", "averagePrice", "liquidationPrice", "unrealizedPnl", "margin", "notional"];
  const position = (i: number) => ({ marketId: `M-${i}`, direction: "LONG", ...Object.fromEntries(fields.map((f) => [f, crafted])) });
  const bodies: Record<string, string> = {
    "/v1/private/account-info": JSON.stringify({
      collateralId: "USDC",
      collateralBalance: crafted,
      availableMargin: crafted,
      totalMargin: crafted,
      positions: Array.from({ length: 2000 }, (_, i) => position(i)),
    }),
    "/v1/private/orders/history": "[]",
    "/v1/private/orders/realtime": "[]",
    "/v1/public/markets": "[]",
  };
  const server = createServer((req, res) => {
    const body = bodies[new URL(req.url ?? "/", "http://x").pathname] ?? "[]";
    setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(body), VENUE_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function numberStorm(build: string, dist: string): Promise<Row> {
  const venue = await craftedVenue();
  const env = { TRADING_BASE_URL: venue.url, TRADING_API_KEY: KEY, TRADING_COLLATERAL_IDS: "USDC", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" };
  const exporter = await startExporterProcess(env, benchNodeArgs(), `${dist}/main.js`);
  try {
    const url = new URL("metrics", exporter.url);
    await ask(url);
    const health = watchHealth(exporter);
    const before = cpuMs(exporter.pid);
    const scrapes = 10;
    const times: number[] = [];
    for (let i = 0; i < scrapes; i++) times.push((await ask(url)).ms);
    const fieldsPerScrape = 2000 * 6 + 3;
    const cpuPerField = (cpuMs(exporter.pid) - before) / scrapes / fieldsPerScrape;
    const slowest = await health();
    return [
      "399-digit numbers over 2,000 positions",
      build,
      `${(cpuPerField * 1000).toFixed(1)} µs CPU a field, scrape p50 ${Math.round(percentile(times, 50))} ms`,
      `${Math.round(slowest)} ms`,
      cpuPerField < 5 && slowest < 100 ? "met" : "MISSED",
    ];
  } finally {
    await exporter.close();
    await venue.close();
  }
}

async function reloadStorm(build: string, dist: string, venue: string, dir: string, kind: "post" | "sighup"): Promise<Row> {
  const file = join(dir, `desk-${build}-${kind}.yaml`);
  writeFileSync(
    file,
    exporterConfigYaml(
      { accounts: ACCOUNTS, apiKey: KEY, apiKeyHeader: "X-Api-Key", collaterals: [{ id: "USDC", shape: "detailed" }] },
      venue.replace(/\/$/, ""),
    ),
  );
  const exporter = await startExporterProcess({ TRADING_CONFIG_FILE: file }, benchNodeArgs(), `${dist}/main.js`);
  try {
    const probe = (i: number) => new URL(`probe?target=sim-${String((i % ACCOUNTS) + 1).padStart(4, "0")}`, exporter.url);
    let probing = true;
    let answers: Array<{ status: number; ms: number }> = [];
    const probe4 = () =>
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = w; probing; i += 4) answers.push(await ask(probe(i)));
      });
    // The same probing for 20 s without a storm first: RSS before is what that load holds.
    await Promise.all([probe4(), pause(20_000).then(() => (probing = false))]);
    await pause(2000);
    const rssBefore = rssMB(exporter.pid);
    probing = true;
    answers = [];
    const health = watchHealth(exporter);
    const probers = probe4();
    const started = performance.now();
    if (kind === "post") {
      const reload = new URL("-/reload", exporter.url);
      for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 200 }, () => ask(reload, "POST")));
    } else {
      for (let i = 0; i < 200; i++) {
        process.kill(exporter.pid, "SIGHUP");
        await pause(100);
      }
    }
    const stormSeconds = (performance.now() - started) / 1000;
    probing = false;
    await Promise.all(probers);
    const slowest = await health();
    await pause(2000);
    const rssAfter = rssMB(exporter.pid);
    const ok = answers.filter((a) => a.status === 200);
    const p50 = percentile(
      answers.map((a) => a.ms),
      50,
    );
    const rssChange = (rssAfter - rssBefore) / rssBefore;
    const met = p50 < 1000 && ok.length === answers.length && slowest < 200 && rssChange <= 0.1;
    return [
      kind === "post" ? "200 concurrent POST /-/reload, 5 times" : "SIGHUP 10 a second for 20 s",
      build,
      `${stormSeconds.toFixed(1)} s; probes ${ok.length}/${answers.length} 200, p50 ${Math.round(p50)} ms; RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB`,
      `${Math.round(slowest)} ms`,
      met ? "met" : "MISSED",
    ];
  } finally {
    await exporter.close();
  }
}

async function main(): Promise<void> {
  const builds: Array<[string, string]> = [["this", THIS]];
  const base = process.env.BENCH_BASE;
  if (base !== undefined && base !== "") builds.push(["base", base]);
  const dir = mkdtempSync(join(tmpdir(), "storms-bench-"));
  const venue = await startSimulatorProcess(deskSimulatorArgs(ACCOUNTS, KEY, VENUE_MS));
  const single = await startSimulatorProcess(deskSimulatorArgs(1, KEY, VENUE_MS));
  const rows: Row[] = [["storm", "build", "figures", "slowest /-/healthy", "goal"]];
  const show = (row: Row) => {
    rows.push(row);
    console.log(row.join(" | "));
  };
  try {
    for (const [build, dist] of builds) {
      if (runs("header")) show(await headerStorm(build, dist, single.url));
      if (runs("numbers")) show(await numberStorm(build, dist));
    }
    for (const kind of ["post", "sighup"] as const)
      for (const [build, dist] of builds) if (runs(kind)) show(await reloadStorm(build, dist, venue.url, dir, kind));
  } finally {
    await Promise.all([venue.close(), single.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${table(rows)}`);
}

await main();
