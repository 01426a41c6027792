// Prints what one gzip member per answer costs against the concatenated members it replaced, on
// the large profile's exposition cut into parts at family boundaries as the collectors cut it.
// Run: npm run build --silent && node dist/bench/gzip-framing.js

import { gunzipSync, gzipSync } from "node:zlib";
import { configFromEnv } from "../config/load.js";
import { Exporter } from "../exporter.js";
import { createLogger } from "../log.js";
import { type Deflated, deflatePiece, gzipMember, inflatePiece, joinPieces } from "../metrics/gzip-member.js";
import { startSimulator } from "../simulator/server.js";
import { Deadline } from "../util/deadline.js";
import { ACTIVE_LIMIT, BASE_ENV, HISTORY_LIMIT, KEY, round2 } from "./shared.js";

const ROUNDS = 40;
/** The replaced scheme's level, as the new one's (gzip-member.ts). */
const LEVEL = 1;

/** The large profile's exposition as Prometheus text, from the simulator and the exporter in this process. */
async function largeExposition(): Promise<string> {
  const venue = await startSimulator({ profile: "large", tickMs: 0, apiKey: KEY });
  const env = { ...BASE_ENV, TRADING_BASE_URL: venue.url, TRADING_COLLATERAL_IDS: "USDC,USDT,BTC", TRADING_LISTEN_ADDRESS: "127.0.0.1:0" };
  const exporter = new Exporter(
    configFromEnv({ ...env, TRADING_ACTIVE_ORDERS_LIMIT: String(ACTIVE_LIMIT), TRADING_HISTORY_PAGE_SIZE: String(HISTORY_LIMIT) }),
    createLogger("error"),
  );
  try {
    const out = await exporter.metrics(new Deadline(30));
    return out.head.plain("text").toString() + (out.reused?.plain("text").toString() ?? "");
  } finally {
    await exporter.close();
    await venue.close();
  }
}

/** Families grouped by their name's first word after `trading_` (account, position, order, market...): one part each. */
function partsOf(text: string): Buffer[] {
  const groups = new Map<string, string[]>();
  for (const family of text.split("\n\n")) {
    const word = /^# HELP trading_([a-z]+)_/.exec(family)?.[1] ?? "other";
    groups.set(word, [...(groups.get(word) ?? []), family]);
  }
  return [...groups.values()].map((families) => Buffer.from(`${families.join("\n\n")}\n`));
}

/** Median milliseconds of CPU (user + system) of each of `before` and `after`, taking turns over ROUNDS runs. */
function cpuMs(before: () => unknown, after: () => unknown): [number, number] {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < ROUNDS * 2; i++) {
    const which = (i + Math.floor(i / 2)) % 2;
    const start = process.cpuUsage();
    (which === 0 ? before : after)();
    const used = process.cpuUsage(start);
    times[which]!.push((used.user + used.system) / 1000);
  }
  const median = (list: number[]) => round2(list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!);
  return [median(times[0]), median(times[1])];
}

const total = (chunks: readonly Buffer[]) => chunks.reduce((n, c) => n + c.length, 0);

const text = await largeExposition();
const parts = partsOf(text);
// The market list is the part a moving venue leaves alone; every other part changes each scrape.
const steady = parts.findIndex((p) => p.toString("latin1", 0, 32).includes("trading_market_"));
const moving = parts.filter((_, i) => i !== steady);

const members = parts.map((p) => gzipSync(p, { level: LEVEL }));
const pieces = parts.map(deflatePiece);
const oneMember = gzipMember([joinPieces(pieces)]);
const rows: Array<[string, ...number[]]> = [
  ["answer bytes (gzip)", total(members), total(oneMember)],
  [
    "compress every part, ms CPU",
    ...cpuMs(
      () => parts.map((p) => gzipSync(p, { level: LEVEL })),
      () => parts.map(deflatePiece),
    ),
  ],
  [
    "compress the moving parts, ms CPU",
    ...cpuMs(
      () => moving.map((p) => gzipSync(p, { level: LEVEL })),
      () => moving.map(deflatePiece),
    ),
  ],
  [
    "join the parts into one answer, ms CPU",
    ...cpuMs(
      () => Buffer.concat(members),
      () => gzipMember([joinPieces(pieces as Deflated[])]),
    ),
  ],
  [
    "unpack every part's text, ms CPU",
    ...cpuMs(
      () => members.map((m) => gunzipSync(m)),
      () => pieces.map(inflatePiece),
    ),
  ],
];
const check = gunzipSync(Buffer.concat(oneMember)).equals(Buffer.concat(parts));

console.log(`Large profile exposition: ${Buffer.byteLength(text)} bytes of text in ${parts.length} parts (${moving.length} moving), medians of ${ROUNDS} runs`);
console.log(`${"".padEnd(40)} ${"members".padStart(12)} ${"one member".padStart(12)}`);
for (const [label, ...figures] of rows) console.log(`${label.padEnd(40)} ${figures.map((f) => String(f).padStart(12)).join(" ")}`);
console.log(`the one member decodes to the parts' text: ${check}`);
