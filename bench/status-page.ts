// `node dist-bench/bench/status-page.js`: what a view of the status page costs at 1 and 1,000 accounts, after one /metrics
// scrape, and that the views call the venue for nothing. Prints numbers; a benchmark, not a test. BENCH_VIEWS changes the
// run; BENCH_CPU_PROF=DIR profiles the exporter (node --cpu-prof).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { startExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile, rssMB, timed } from "./measure.js";
import { round1, round2, table } from "./shared.js";
import { startSimulatorProcess, type SimulatorProcess } from "./simulator-process.js";

const KEY = "status-key";

async function venueRequests(venue: SimulatorProcess): Promise<number> {
  return Object.values((await venue.stats()).requests).reduce((a, b) => a + b, 0);
}

async function measure(accounts: number, views: number): Promise<string[]> {
  const venue = await startSimulatorProcess(["--accounts", String(accounts), "--api-key", KEY, "--collateral", "USDC:detailed", "--tick-ms", "0"]);
  const dir = mkdtempSync(join(tmpdir(), "status-page-bench-"));
  const configFile = join(dir, "trading-exporter.yml");
  const collaterals = [{ id: "USDC", shape: "detailed" as const }];
  writeFileSync(configFile, exporterConfigYaml({ accounts, apiKey: KEY, apiKeyHeader: "X-Api-Key", collaterals }, venue.url.replace(/\/$/, "")));
  // info: the exporter's start-up line is where its address is read from.
  const profileDir = process.env.BENCH_CPU_PROF;
  const exporter = await startExporterProcess(
    { TRADING_CONFIG_FILE: configFile, TRADING_LOG_LEVEL: "info" },
    profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", profileDir],
  );
  try {
    const [metrics, scrapeMs] = await timed(async () => (await fetch(new URL("/metrics", exporter.url))).text());
    const before = await venueRequests(venue);
    const cpuBefore = cpuMs(exporter.pid);
    const latencies: number[] = [];
    let bytes = 0;
    for (let i = 0; i < views; i++) {
      const [page, ms] = await timed(async () => (await fetch(new URL("/", exporter.url))).text());
      latencies.push(ms);
      bytes = Buffer.byteLength(page);
    }
    const cpuPerView = (cpuMs(exporter.pid) - cpuBefore) / views;
    const venueCalls = (await venueRequests(venue)) - before;
    return [
      String(accounts),
      String(round1(metrics.length / 1024)),
      String(Math.round(scrapeMs)),
      String(round1(bytes / 1024)),
      String(round1(percentile(latencies, 50))),
      String(round1(percentile(latencies, 90))),
      String(round2(cpuPerView)),
      String(venueCalls),
      String(round1(rssMB(exporter.pid))),
    ];
  } finally {
    await exporter.close();
    await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const views = Number(process.env.BENCH_VIEWS ?? "20");
  const rows = [["accounts", "/metrics KiB", "scrape ms", "page KiB", "view p50 ms", "view p90 ms", "CPU ms/view", "venue calls by views", "RSS MB"]];
  for (const accounts of [1, 1000]) rows.push(await measure(accounts, views));
  console.log(`status page, ${views} views each after one /metrics scrape (Node ${process.version}):`);
  console.log(table(rows));
}

await main();
