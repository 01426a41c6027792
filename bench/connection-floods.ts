// `npm run bench:floods`: the exporter at its shipped connection limits (512 connections, 10 s to a request's
// head) under 600 attacker connections of one kind at a time, each reopened as soon as it is closed: silent,
// trickling a request's head, or trickling a body that never completes. Meanwhile a keep-alive client (as
// Prometheus) and a fresh-connection client each scrape /metrics every 2 s for 60 s. Goal: each gets at least
// 29 of 30 answers 200 within 2 s, and the exporter's RSS grows by at most 150 MB under each kind.
// BENCH_BASE=DIR (another build's dist folder) runs that build the same way in the same run.
// BENCH_FLOOD_SECONDS (60) and BENCH_ATTACKERS (600) change the run. A benchmark, not a test.

import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { benchNodeArgs, startExporterProcess } from "./exporter-process.js";
import { percentile, rssMB } from "./measure.js";
import { KEY, latencyOf, positiveInteger, table } from "./shared.js";
import { deskSimulatorArgs, startSimulatorProcess } from "./simulator-process.js";

const THIS = new URL("../../dist", import.meta.url).pathname;
const SECONDS = positiveInteger("BENCH_FLOOD_SECONDS", 60);
const ATTACKERS = positiveInteger("BENCH_ATTACKERS", 600);
const EVERY_MS = 2_000;
const DEADLINE_MS = 2_000;
const GOAL_OK = 29 / 30;
const GOAL_GROWTH_MB = 150;
const VENUE_MS = 150;

/** What an attacker's connection does once open; it trickles a byte or a KiB a second. */
const KINDS: Record<string, (socket: Socket) => NodeJS.Timeout | undefined> = {
  silent: () => undefined,
  "trickled head": (socket) => {
    socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    return setInterval(() => socket.write("a"), 1_000);
  },
  "body that never completes": (socket) => {
    socket.write(`POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 ** 30}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, "x"));
    return setInterval(() => socket.write(Buffer.alloc(1024, "x")), 1_000);
  },
};

/** `n` attacker connections of one kind, each reopened when the exporter closes it, until `stop()`. */
function flood(port: number, n: number, kind: (socket: Socket) => NodeJS.Timeout | undefined): { stop(): void; reopened(): number } {
  let stopped = false;
  let reopened = 0;
  const open = new Set<Socket>();
  const one = (): void => {
    if (stopped) return;
    const socket = connect(port, "127.0.0.1");
    open.add(socket);
    let trickle: NodeJS.Timeout | undefined;
    socket.on("connect", () => (trickle = kind(socket)));
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(trickle);
      open.delete(socket);
      reopened++;
      setImmediate(one);
    });
  };
  for (let i = 0; i < n; i++) one();
  return {
    stop() {
      stopped = true;
      for (const socket of open) socket.destroy();
    },
    reopened: () => reopened,
  };
}

/** One GET of /metrics: its milliseconds if answered 200 within the deadline, else undefined. */
function scrape(url: URL, agent: Agent | false): Promise<number | undefined> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { "accept-encoding": "gzip" }, timeout: DEADLINE_MS }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => {
        const ms = performance.now() - started;
        resolve(res.statusCode === 200 && ms <= DEADLINE_MS ? ms : undefined);
      });
      res.on("error", () => resolve(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

interface Row {
  build: string;
  kind: string;
  keepAlive: Array<number | undefined>;
  fresh: Array<number | undefined>;
  rssBefore: number;
  rssPeak: number;
  reopened: number;
}

async function run(build: string, dist: string, kind: string, venueUrl: string): Promise<Row> {
  const env = {
    TRADING_BASE_URL: venueUrl,
    TRADING_API_KEY: KEY,
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_API_KEY_HEADER: "X-Api-Key",
    TRADING_LOG_LEVEL: "info",
  };
  const exporter = await startExporterProcess(env, benchNodeArgs(), `${dist}/main.js`);
  try {
    const url = new URL("metrics", exporter.url);
    const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    // Warm: the first collection and the answer cache, as a Prometheus that has been scraping.
    await scrape(url, keepAliveAgent);
    const rssBefore = rssMB(exporter.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMB(exporter.pid))), 250);
    const attack = flood(Number(new URL(exporter.url).port), ATTACKERS, KINDS[kind]!);
    const keepAlive: Array<number | undefined> = [];
    const fresh: Array<number | undefined> = [];
    const rounds = Math.round((SECONDS * 1000) / EVERY_MS);
    for (let i = 0; i < rounds; i++) {
      const tick = new Promise((resolve) => setTimeout(resolve, EVERY_MS));
      const [a, b] = await Promise.all([scrape(url, keepAliveAgent), scrape(url, false)]);
      keepAlive.push(a);
      fresh.push(b);
      await tick;
    }
    attack.stop();
    clearInterval(sampler);
    keepAliveAgent.destroy();
    return { build, kind, keepAlive, fresh, rssBefore, rssPeak, reopened: attack.reopened() };
  } finally {
    await exporter.close();
  }
}

const answered = (list: Array<number | undefined>) => list.filter((ms) => ms !== undefined) as number[];

async function main(): Promise<void> {
  const builds: Array<[string, string]> = [["this", THIS]];
  const base = process.env.BENCH_BASE;
  if (base !== undefined && base !== "") builds.push(["base", base]);
  const venue = await startSimulatorProcess(deskSimulatorArgs(1, KEY, VENUE_MS));
  console.log(`${ATTACKERS} attacker connections of each kind, reopened when closed, for ${SECONDS} s; ${latencyOf(VENUE_MS).text}`);
  console.log(
    `Goal: at least ${Math.ceil(GOAL_OK * 30)} of 30 scrapes (every ${EVERY_MS / 1000} s) answered 200 within ${DEADLINE_MS / 1000} s for each client; RSS growth at most ${GOAL_GROWTH_MB} MB`,
  );
  const rows: string[][] = [
    [
      "build",
      "attack",
      "keep-alive 200 in 2 s",
      "fresh 200 in 2 s",
      "p50 ms keep-alive/fresh",
      "RSS before MB",
      "RSS peak MB",
      "growth MB",
      "attacker reconnects",
      "goal",
    ],
  ];
  try {
    for (const kind of Object.keys(KINDS)) {
      for (const [build, dist] of builds) {
        const r = await run(build, dist, kind, venue.url);
        const [a, b] = [answered(r.keepAlive), answered(r.fresh)];
        const growth = r.rssPeak - r.rssBefore;
        const met = a.length >= GOAL_OK * r.keepAlive.length && b.length >= GOAL_OK * r.fresh.length && growth <= GOAL_GROWTH_MB;
        const p50 = (list: number[]) => (list.length === 0 ? "-" : String(Math.round(percentile(list, 50))));
        rows.push([
          build,
          kind,
          `${a.length}/${r.keepAlive.length}`,
          `${b.length}/${r.fresh.length}`,
          `${p50(a)}/${p50(b)}`,
          r.rssBefore.toFixed(0),
          r.rssPeak.toFixed(0),
          growth.toFixed(0),
          String(r.reopened),
          met ? "met" : "MISSED",
        ]);
        console.log(rows.at(-1)!.join(" | "));
      }
    }
  } finally {
    await venue.close();
  }
  console.log(`\n${table(rows)}`);
}

await main();
