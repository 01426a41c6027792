// What the benchmark's parts share: the venue's key and limits, the scraping client, table printing.

import { Agent, request } from "node:http";

export const KEY = "bench-key";
export const ACTIVE_LIMIT = 200_000;
export const HISTORY_LIMIT = 1000;
export const BASE_ENV = {
  TRADING_API_KEY: KEY,
  // Every order in one answer and the whole history in one page, so every contender makes the same requests.
  TRADING_ACTIVE_ORDERS_LIMIT: String(ACTIVE_LIMIT),
  TRADING_HISTORY_PAGE_SIZE: String(HISTORY_LIMIT),
  TRADING_MAX_BODY_BYTES: String(256 * 2 ** 20),
  TRADING_MAX_IN_FLIGHT_SCRAPES: "100",
  TRADING_SCRAPE_TIMEOUT_SECONDS: "30",
  TRADING_LOG_LEVEL: "info",
  // Every scrape collects, as each scrape of a Prometheus at 15 s does: back to back, the default 12 s
  // minimum interval would serve the last collection again, the cache's best case, not what users run.
  TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0",
};
/** A whole number of at least 1 from the environment variable `name`, or `fallback` when it is unset. */
export function positiveInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: expected a whole number of at least 1, got ${JSON.stringify(text)}`);
  return value;
}

/** BENCH_VENUE_LATENCY_MS (0): the simulator's `--latency-ms`, every venue answer held that long as a venue that far away would. */
/** BENCH_VENUE_LATENCY_MS: the venue's latencies a run is made at, in ms, a comma-separated list (default 0,150,300; 0: loopback). */
export function venueLatencies(): number[] {
  const text = process.env.BENCH_VENUE_LATENCY_MS ?? "0,150,300";
  const list = text.split(",").map((part) => part.trim());
  if (list.some((part) => !/^\d{1,6}$/.test(part)))
    throw new Error(`BENCH_VENUE_LATENCY_MS: expected whole numbers of ms separated by commas, got ${JSON.stringify(text)}`);
  return list.map(Number);
}

/** The simulator's flags and the report's words for a venue `ms` away. */
export function latencyOf(ms: number): { ms: number; simulatorArgs: string[]; text: string } {
  return { ms, simulatorArgs: ms > 0 ? ["--latency-ms", String(ms)] : [], text: ms > 0 ? `venue latency ${ms} ms (±10%)` : "venue latency 0 (loopback)" };
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keep-alive connections for the scraping client. */
export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One scrape as Prometheus makes it (Accept-Encoding: gzip), reading every byte but not
 * decompressing: the client's gunzip is Prometheus's cost, and here it would compete for the
 * same two cores as the contenders.
 */
export function fetchRaw(url: URL, headers: Record<string, string> = {}): Promise<Buffer> {
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

export const seriesOf = (text: string) => text.split("\n").filter((l) => l !== "" && !l.startsWith("#")).length;

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padStart(widths[i]!)).join("  ")).join("\n");
}
