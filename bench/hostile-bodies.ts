// `npm run bench:hostile`: the exporter (as the image runs it) against a venue whose every answer is
// 9.9 MB of empty objects, three collaterals and all four endpoints in each scrape. Prints, per
// scrape, its time against the deadline, which endpoints were read, the slowest /-/healthy answer
// during it and the peak RSS. A benchmark, not a test: the goals (answer inside the deadline, health
// within 1 s at every poll, RSS below 400 MB) are checked by reading it.

import { request } from "node:http";
import { type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { rssMB } from "./measure.js";
import { KEY, round1, table } from "./shared.js";
import { startSimulatorProcess } from "./simulator-process.js";

/** Scrapes per row: `npm run bench:hostile -- 20` for a longer look at memory. */
const SCRAPES = Number(process.argv[2] ?? 5);
const SCRAPE_TIMEOUT_S = 10;
const ENDPOINTS = ["account_info", "orders_active", "orders_history", "markets"];

function get(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

async function scrapeOnce(exporter: ExporterProcess): Promise<string[]> {
  let peak = rssMB(exporter.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMB(exporter.pid));
  }, 50);
  const started = performance.now();
  let done = false;
  const scrape = get(new URL("metrics", exporter.url), { "x-prometheus-scrape-timeout-seconds": String(SCRAPE_TIMEOUT_S) }).finally(() => {
    done = true;
  });
  const health: number[] = [];
  let unhealthy = 0;
  while (!done) {
    const t = performance.now();
    const res = await get(new URL("-/healthy", exporter.url));
    health.push(performance.now() - t);
    if (res.status !== 200) unhealthy++;
  }
  const answer = await scrape;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const read = ENDPOINTS.filter((e) => new RegExp(`^trading_scrape_success\\{[^}]*endpoint="${e}"[^}]*\\} 1$`, "m").test(answer.body));
  return [
    String(answer.status),
    round1(seconds).toFixed(1),
    `${read.length}/${ENDPOINTS.length}`,
    String(health.length),
    String(unhealthy),
    Math.round(Math.max(...health)).toString(),
    Math.round(peak).toString(),
  ];
}

/** Every body is read at every scrape, as a venue whose answers change makes it. */
async function run(): Promise<void> {
  const venue = await startSimulatorProcess(["--profile", "large", "--tick-ms", "0", "--api-key", KEY, "--fault", "*:empty_objects"]);
  const exporter = await startExporterProcess({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: KEY,
    TRADING_COLLATERAL_IDS: "USDC,USDT,BTC",
    TRADING_MARKETS_CACHE_SECONDS: "0",
    TRADING_LOG_LEVEL: "info",
  });
  try {
    console.log("\nEvery body read at every scrape");
    const rows = [["scrape", "status", "seconds", "endpoints read", "health polls", "not 200", "slowest health ms", "peak RSS MB"]];
    for (let i = 1; i <= SCRAPES; i++) rows.push([String(i), ...(await scrapeOnce(exporter))]);
    console.log(table(rows));
    console.log(`RSS after: ${Math.round(rssMB(exporter.pid))} MB`);
  } finally {
    await exporter.close();
    await venue.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `Every venue answer 9.9 MB of {} (3 collaterals + active + history + markets per scrape), deadline ${SCRAPE_TIMEOUT_S - 0.5} s, Node ${process.version}`,
  );
  await run();
}

await main();
