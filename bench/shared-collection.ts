// `npm run bench:sharing`: what many scrapers sharing one collection can do to each other, with the default
// settings (12 s minimum collection interval, 40 scrapes in flight, 10 s default deadline). Prints, for this
// build and for BENCH_BASE's (another checkout's built dist, when set), in the same run:
// - a scrape with a 1 µs deadline, then scrapes at +1, +5 and +11 s: trading_up of each;
// - an HA pair's 1 s and 10 s scrapers against a venue answering in 0.8 s, three rounds: the 10 s one's trading_up;
// - 50 concurrent debug probes, and 300 pipelined on one connection: their statuses and the venue requests;
// - a 429 with Retry-After: 300, then ten reloads each followed by a scrape, and one past the interval: account-info requests.
// Runs about 2 minutes per build. A benchmark, not a test: the goals are printed beside the figures.

import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { KEY } from "./shared.js";
import { type SimulatorProcess, startSimulatorProcess } from "./simulator-process.js";

const MIN_INTERVAL_MS = 12_000;

async function scrape(exporter: ExporterProcess, path: string, timeout?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(new URL(path, exporter.url), timeout === undefined ? {} : { headers: { "x-prometheus-scrape-timeout-seconds": timeout } });
  return { status: res.status, body: await res.text() };
}

function up(body: string): string {
  return /^trading_up\{account="sim"\} (\S+)$/m.exec(body)?.[1] ?? "absent";
}

async function accountInfoRequests(venue: SimulatorProcess): Promise<number> {
  return (await venue.stats()).requests.account_info ?? 0;
}

async function allRequests(venue: SimulatorProcess): Promise<number> {
  return Object.values((await venue.stats()).requests).reduce((a, b) => a + b, 0);
}

/** Sends `n` GETs of `path` in one write on one connection and counts the statuses of the answers. */
function pipelined(exporter: ExporterProcess, path: string, n: number): Promise<Map<string, number>> {
  const url = new URL(exporter.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = "";
    const statuses = new Map<string, number>();
    const done = () => {
      socket.destroy();
      resolve(statuses);
    };
    const timer = setTimeout(done, 60_000);
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(statuses);
    });
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      let total = 0;
      statuses.clear();
      for (const m of text.matchAll(/HTTP\/1\.1 (\d{3})/g)) {
        statuses.set(m[1]!, (statuses.get(m[1]!) ?? 0) + 1);
        total++;
      }
      if (total >= n) done();
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\n\r\n`.repeat(n));
  });
}

const counts = (statuses: number[] | Map<string, number>) =>
  [...(Array.isArray(statuses) ? statuses.reduce((m, s) => m.set(String(s), (m.get(String(s)) ?? 0) + 1), new Map<string, number>()) : statuses)]
    .map(([s, n]) => `${n} x ${s}`)
    .join(", ");

async function withStack<T>(main: string | undefined, run: (exporter: ExporterProcess, venue: SimulatorProcess) => Promise<T>): Promise<T> {
  const venue = await startSimulatorProcess(["--seed", "1", "--api-key", KEY]);
  const exporter = await startExporterProcess(
    { TRADING_BASE_URL: venue.url, TRADING_API_KEY: KEY, TRADING_COLLATERAL_IDS: "USDC", TRADING_ACCOUNT: "sim" },
    [],
    ...(main === undefined ? [] : [main]),
  );
  try {
    return await run(exporter, venue);
  } finally {
    await exporter.close();
    await venue.close();
  }
}

async function shortDeadline(main: string | undefined): Promise<string> {
  return withStack(main, async (exporter, venue) => {
    await venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    const baseline = up((await scrape(exporter, "metrics", "10")).body);
    await sleep(MIN_INTERVAL_MS);
    console.error("  short deadline: the 1 us scrape");
    const short = await scrape(exporter, "metrics", "0.000001");
    const seen: string[] = [];
    let at = 0;
    for (const offset of [1000, 5000, 11_000]) {
      await sleep(offset - at);
      at = offset;
      seen.push(up((await scrape(exporter, "metrics", "10")).body));
    }
    return `baseline up ${baseline}; the 1 us scrape: ${short.status}, up ${up(short.body)}; at +1, +5, +11 s: up ${seen.join(", ")} (goal: 1, 1, 1)`;
  });
}

async function haPair(main: string | undefined): Promise<string> {
  return withStack(main, async (exporter, venue) => {
    await venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 800 }]);
    const rounds: string[] = [];
    for (let round = 0; round < 3; round++) {
      if (round > 0) await sleep(MIN_INTERVAL_MS + 500);
      const short = scrape(exporter, "metrics", "1");
      await sleep(100);
      const long = await scrape(exporter, "metrics", "10");
      await short;
      rounds.push(up(long.body));
    }
    return `the 10 s scraper's up in three rounds: ${rounds.join(", ")} (goal: 1, 1, 1)`;
  });
}

async function debugProbes(main: string | undefined): Promise<string> {
  return withStack(main, async (exporter, venue) => {
    await venue.resetStats();
    const statuses = await Promise.all(Array.from({ length: 50 }, async () => (await scrape(exporter, "probe?target=sim&debug=true")).status));
    const concurrent = await accountInfoRequests(venue);
    const concurrentAll = await allRequests(venue);
    await sleep(MIN_INTERVAL_MS);
    await venue.resetStats();
    const piped = await pipelined(exporter, "/probe?target=sim&debug=true", 300);
    return [
      `50 concurrent: ${counts(statuses)}; venue requests ${concurrentAll}, account-info ${concurrent} (goal: one collection, account-info 1)`,
      `300 pipelined on one connection: ${counts(piped)}; venue requests ${await allRequests(venue)}, account-info ${await accountInfoRequests(venue)} (goal: 1)`,
    ].join("\n  ");
  });
}

async function reloadAfter429(main: string | undefined): Promise<string> {
  return withStack(main, async (exporter, venue) => {
    await venue.setFaults([{ endpoint: "account_info", kind: "status", status: 429, retryAfter: "300" }]);
    await scrape(exporter, "metrics", "10");
    await venue.setFaults([]);
    await venue.resetStats();
    for (let i = 0; i < 10; i++) {
      await fetch(new URL("-/reload", exporter.url), { method: "POST" });
      await scrape(exporter, "metrics", "10");
    }
    const insideAll = await allRequests(venue);
    await sleep(MIN_INTERVAL_MS);
    await fetch(new URL("-/reload", exporter.url), { method: "POST" });
    await scrape(exporter, "metrics", "10");
    return `ten reload-then-scrape rounds: venue requests ${insideAll} (goal 0); after the interval, a reload and a scrape: account-info requests ${await accountInfoRequests(venue)} (goal 0 inside the 300 s)`;
  });
}

async function main(): Promise<void> {
  const builds: Array<[string, string | undefined]> = [["this build", undefined]];
  const base = process.env.BENCH_BASE;
  if (base !== undefined && base !== "") builds.push([`base (${base})`, new URL(`file://${base}/dist/main.js`).pathname]);
  for (const [name, path] of builds) {
    console.log(`== ${name}`);
    console.log(`short deadline:\n  ${await shortDeadline(path)}`);
    console.log(`HA pair, 1 s and 10 s, venue at 0.8 s:\n  ${await haPair(path)}`);
    console.log(`debug probes:\n  ${await debugProbes(path)}`);
    console.log(`reload after a 429 with Retry-After: 300:\n  ${await reloadAfter429(path)}`);
  }
}

await main();
