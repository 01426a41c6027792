// `npm run bench`: the exporter against the physical floor, on the simulator's small, large and
// huge profiles, then the cost per scrape as markets and orders grow. Prints tables, writes JSON.
// A benchmark, not a test: it measures and reports; the targets are checked by reading it.

import { mkdirSync, writeFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { startExporterProcess, type ExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile, rssMB, timed } from "./measure.js";
import { startSimulatorProcess, type SimulatorProcess } from "./simulator-process.js";

const KEY = "bench-key";
const BASE_ENV = {
  TRADING_API_KEY: KEY,
  // Every order in one answer and the whole history in one page, so exporter and floor make the same requests.
  TRADING_ACTIVE_ORDERS_LIMIT: "200000",
  TRADING_HISTORY_PAGE_SIZE: "1000",
  TRADING_MAX_BODY_BYTES: String(256 * 2 ** 20),
  TRADING_MAX_IN_FLIGHT_SCRAPES: "100",
  TRADING_SCRAPE_TIMEOUT_SECONDS: "30",
  TRADING_LOG_LEVEL: "info",
};

interface Profile {
  name: string;
  simArgs: string[];
  collaterals: string[];
  sequential: number;
  rounds: number;
}

const PROFILES: Profile[] = [
  { name: "small", simArgs: ["--profile", "small"], collaterals: ["USDC", "USDT"], sequential: 300, rounds: 20 },
  { name: "large", simArgs: ["--profile", "large"], collaterals: ["USDC", "USDT", "BTC"], sequential: 300, rounds: 20 },
  { name: "huge", simArgs: ["--profile", "huge"], collaterals: ["USDC", "USDT", "BTC"], sequential: 40, rounds: 3 },
];

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keep-alive connections for the scraping client, enough for 50 at once. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One scrape as Prometheus makes it (Accept-Encoding: gzip), reading every byte but not
 * decompressing: the client's gunzip is Prometheus's cost, and here it would compete for the
 * same two cores as the exporter.
 */
function fetchRaw(url: URL, headers: Record<string, string> = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    request(url, { agent, headers: { "accept-encoding": "gzip", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks)));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

async function scrape(url: URL): Promise<[Buffer, number]> {
  return timed(() => fetchRaw(url));
}

/** The exposition as text, for counting series and bytes. */
async function exposition(url: URL): Promise<string> {
  return (await fetchRaw(url, { "accept-encoding": "identity" })).toString();
}

function upstreamUrls(venue: string, collaterals: string[]): URL[] {
  return [
    ...collaterals.map((c) => `v1/private/account-info?collateralId=${c}`),
    "v1/private/orders/realtime?limit=200000",
    "v1/private/orders/history?offset=0&limit=1000",
    "v1/public/markets",
  ].map((p) => new URL(p, venue));
}

/** A server answering a prebuilt body of `bytes` bytes: the cheapest possible /metrics. */
async function prebuiltServer(bytes: number): Promise<{ url: URL; close(): Promise<void> }> {
  const body = Buffer.alloc(bytes, "a");
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/metrics`), close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The floor: the same upstream requests in parallel with plain fetch and JSON.parse, then a
 * prebuilt body of the exporter's answer size (as sent: gzip) written to the socket.
 */
async function floor(venue: string, collaterals: string[], bytes: number, n: number) {
  const urls = upstreamUrls(venue, collaterals);
  const prebuilt = await prebuiltServer(bytes);
  const latencies: number[] = [];
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const [, ms] = await timed(async () => {
      await Promise.all(urls.map(async (u) => JSON.parse(await (await fetch(u, { headers: { "x-api-key": KEY } })).text()) as unknown));
      await fetchRaw(prebuilt.url);
    });
    latencies.push(ms);
  }
  const cpu = process.cpuUsage(before);
  await prebuilt.close();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuMs: (cpu.user + cpu.system) / 1000 / n };
}

function requestsOf(stats: { requests: Record<string, number> }): number {
  return Object.values(stats.requests).reduce((a, b) => a + b, 0);
}

async function concurrent(url: URL, venue: SimulatorProcess, size: number, rounds: number) {
  const latencies: number[] = [];
  const perRound: number[] = [];
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    await venue.resetStats();
    const results = await Promise.all(Array.from({ length: size }, () => scrape(url)));
    for (const [, ms] of results) latencies.push(ms);
    perRound.push(requestsOf(await venue.stats()));
  }
  process.stderr.write(`  ${size} at once: venue requests per round ${perRound.join(" ")}\n`);
  const seconds = (performance.now() - started) / 1000;
  return {
    scrapesPerSecond: round1((size * rounds) / seconds),
    p50: round1(percentile(latencies, 50)),
    p99: round1(percentile(latencies, 99)),
    venueRequestsPerRound: percentile(perRound, 50),
  };
}

async function heapMB(url: URL): Promise<number> {
  const text = await exposition(url);
  const match = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text);
  return match ? round1(Number(match[1]) / 2 ** 20) : Number.NaN;
}

async function runProfile(p: Profile) {
  const venue = await startSimulatorProcess([...p.simArgs, "--tick-ms", "0", "--api-key", KEY]);
  const exporter = await startExporterProcess({ ...BASE_ENV, TRADING_BASE_URL: venue.url, TRADING_COLLATERAL_IDS: p.collaterals.join(",") });
  try {
    const url = new URL("metrics", exporter.url);
    const body = await exposition(url); // warm: connections, caches, JIT
    const [sent] = await scrape(url);
    for (let i = 0; i < 5; i++) await scrape(url);
    const series = body.split("\n").filter((l) => l !== "" && !l.startsWith("#")).length;
    const bytes = Buffer.byteLength(body);
    const floorStats = await floor(venue.url, p.collaterals, sent.length, p.sequential);

    await exporter.loopDelay(); // reset
    await venue.resetStats();
    const cpuBefore = cpuMs(exporter.pid);
    const latencies: number[] = [];
    for (let i = 0; i < p.sequential; i++) latencies.push((await scrape(url))[1]);
    const cpuPerScrape = (cpuMs(exporter.pid) - cpuBefore) / p.sequential;
    const upstreamPerScrape = requestsOf(await venue.stats()) / p.sequential;
    const c10 = await concurrent(url, venue, 10, p.rounds);
    const c50 = await concurrent(url, venue, 50, p.rounds);
    const loop = await exporter.loopDelay();
    const scrapes = 6 + p.sequential + (10 + 50) * p.rounds;
    const seq = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    return {
      profile: p.name,
      series,
      bytes,
      gzipBytes: sent.length,
      floor: { p50: round2(floorStats.p50), p99: round2(floorStats.p99), cpuMs: round2(floorStats.cpuMs) },
      exporter: {
        p50: round2(seq.p50),
        p99: round2(seq.p99),
        cpuMs: round2(cpuPerScrape),
        upstreamRequestsPerScrape: round2(upstreamPerScrape),
        concurrent10: c10,
        concurrent50: c50,
        scrapes,
        rssMB: round1(rssMB(exporter.pid)),
        heapMB: await heapMB(url),
        loopDelayP99Ms: round1(loop.p99),
        loopDelayMaxMs: round1(loop.max),
      },
      ratio: { p50: round2(seq.p50 / floorStats.p50), p99: round2(seq.p99 / floorStats.p99), cpu: round2(cpuPerScrape / floorStats.cpuMs) },
    };
  } finally {
    await exporter.close();
    await venue.close();
  }
}

/** CPU per scrape when every scrape must parse and render everything (no reuse of unchanged bodies). */
async function growth(label: string, unit: string, sizes: number[], simArgs: (n: number) => string[], scrapes: (n: number) => number) {
  const points: Array<{ size: number; series: number; cpuMs: number }> = [];
  for (const size of sizes) {
    const venue = await startSimulatorProcess([...simArgs(size), "--tick-ms", "0", "--api-key", KEY]);
    const exporter: ExporterProcess = await startExporterProcess({
      ...BASE_ENV,
      TRADING_BASE_URL: venue.url,
      TRADING_COLLATERAL_IDS: "USDC,USDT",
      TRADING_REUSE_UNCHANGED_BODIES: "false",
      TRADING_MARKETS_CACHE_SECONDS: "0",
    });
    try {
      const url = new URL("metrics", exporter.url);
      const body = await exposition(url);
      for (let i = 0; i < 3; i++) await scrape(url);
      // The median of three batches: a major GC landing in one batch must not decide the slope.
      const n = scrapes(size);
      const batches: number[] = [];
      for (let b = 0; b < 3; b++) {
        const before = cpuMs(exporter.pid);
        for (let i = 0; i < n; i++) await scrape(url);
        batches.push((cpuMs(exporter.pid) - before) / n);
      }
      points.push({
        size,
        series: body.split("\n").filter((l) => l !== "" && !l.startsWith("#")).length,
        cpuMs: round2(percentile(batches, 50)),
      });
    } finally {
      await exporter.close();
      await venue.close();
    }
  }
  const [a, b, c] = points as [(typeof points)[0], (typeof points)[0], (typeof points)[0]];
  const predicted = b.cpuMs + ((b.cpuMs - a.cpuMs) * (c.size - b.size)) / (b.size - a.size);
  return {
    label,
    unit,
    points,
    lastStepVsLinear: round2(c.cpuMs / predicted),
    microsecondsPerUnit: round2(((c.cpuMs - a.cpuMs) * 1000) / (c.size - a.size)),
    microsecondsPerSeries: c.series > a.series ? round2(((c.cpuMs - a.cpuMs) * 1000) / (c.series - a.series)) : undefined,
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i]!)).join("  ")).join("\n");
}

async function main(): Promise<void> {
  const only = process.argv[2];
  const growthOnly = only === "growth";
  const machine = `${cpus().length} x ${cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const results = [];
  for (const p of PROFILES.filter((x) => !growthOnly && (only === undefined || x.name === only))) {
    process.stderr.write(`profile ${p.name}...\n`);
    results.push(await runProfile(p));
  }
  process.stderr.write("cost as work grows...\n");
  const growthResults =
    only === undefined || growthOnly
      ? [
          await growth("markets", "market", [100, 1000, 5000], (n) => ["--markets", String(n), "--positions", "5", "--active-orders", "20", "--history-orders", "20"], (n) => (n >= 5000 ? 20 : 50)),
          await growth("active orders", "order", [1000, 10000, 100000], (n) => ["--markets", "50", "--active-orders", String(n), "--history-orders", "20"], (n) => (n >= 100000 ? 4 : n >= 10000 ? 15 : 50)),
        ]
      : [];

  const out = [
    `machine: ${machine}`,
    "",
    table([
      ["profile", "series", "bytes", "floor p50", "floor p99", "p50", "p99", "p50/floor", "p99/floor", "cpu ms", "cpu/floor", "venue req/scrape"],
      ...results.map((r) => [
        r.profile, String(r.series), String(r.bytes), `${r.floor.p50}`, `${r.floor.p99}`, `${r.exporter.p50}`, `${r.exporter.p99}`,
        `${r.ratio.p50}x`, `${r.ratio.p99}x`, `${r.exporter.cpuMs}`, `${r.ratio.cpu}x`, `${r.exporter.upstreamRequestsPerScrape}`,
      ]),
    ]),
    "",
    table([
      ["profile", "10 at once: /s", "p50", "p99", "50 at once: /s", "p50", "p99", "venue req per 50", "rss MB", "heap MB", "after scrapes", "loop p99 ms", "loop max ms"],
      ...results.map((r) => {
        const e = r.exporter;
        return [
          r.profile, `${e.concurrent10.scrapesPerSecond}`, `${e.concurrent10.p50}`, `${e.concurrent10.p99}`, `${e.concurrent50.scrapesPerSecond}`,
          `${e.concurrent50.p50}`, `${e.concurrent50.p99}`, `${e.concurrent50.venueRequestsPerRound}`, `${e.rssMB}`, `${e.heapMB}`, `${e.scrapes}`,
          `${e.loopDelayP99Ms}`, `${e.loopDelayMaxMs}`,
        ];
      }),
    ]),
    ...(growthResults.length === 0
      ? []
      : [
          "",
          table([
            ["grows with", "size", "series", "cpu ms/scrape"],
            ...growthResults.flatMap((g) => g.points.map((p) => [g.label, String(p.size), String(p.series), String(p.cpuMs)])),
          ]),
          "",
          ...growthResults.map(
            (g) =>
              `${g.label}: last step ${g.lastStepVsLinear}x the linear extrapolation; ${g.microsecondsPerUnit} us per ${g.unit}` +
              (g.microsecondsPerSeries === undefined ? "" : `, ${g.microsecondsPerSeries} us per series`),
          ),
        ]),
  ].join("\n");
  process.stdout.write(`${out}\n`);
  agent.destroy();
  mkdirSync("bench-results", { recursive: true });
  writeFileSync("bench-results/benchmark.json", `${JSON.stringify({ machine, date: new Date().toISOString(), results, growth: growthResults }, null, 2)}\n`);
  process.stderr.write("wrote bench-results/benchmark.json\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
