// `node dist-bench/bench/simulator-desk.js`: the simulator with BENCH_ACCOUNTS accounts (10,000): the time from its
// start to its first answer, and its resident memory once every account has been asked what a collection asks
// (account-info per collateral, the active orders, the history page by page). Prints numbers; a benchmark, not a test.
// BENCH_SIM_ARGS adds simulator flags; BENCH_BASE=DIR (another build's dist folder) measures that build's simulator too.

import { deskAccountKey } from "../tools/simulator/desk.js";
import { rssMB } from "./measure.js";
import { positiveInteger, round1 } from "./shared.js";
import { baseSimulator, startSimulatorProcess } from "./simulator-process.js";

const KEY = "desk-key";
const GOALS = { firstAnswerSeconds: 2, rssMB: 500 };
/** Accounts asked at once, as a few exporters' collections would. */
const CONCURRENCY = 16;
/** The exporter's defaults: venue.history_page_size, venue.active_orders_limit. */
const HISTORY_PAGE = 100;
const ACTIVE_LIMIT = 1000;
const HISTORY_PAGES = 10;

async function ask(url: URL, key: string): Promise<unknown> {
  const res = await fetch(url, { headers: { "X-Api-Key": key } });
  if (res.status !== 200) throw new Error(`${url.pathname}: ${res.status}`);
  return res.json();
}

/** What one collection of account `i` asks the venue, the history paged until a short page. */
async function collect(venue: string, i: number, accounts: number, collaterals: readonly string[]): Promise<void> {
  const key = deskAccountKey(KEY, i, accounts);
  for (const id of collaterals) await ask(new URL(`/v1/private/account-info?collateralId=${id}`, venue), key);
  await ask(new URL(`/v1/private/orders/realtime?limit=${ACTIVE_LIMIT}`, venue), key);
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const orders = (await ask(new URL(`/v1/private/orders/history?offset=${page * HISTORY_PAGE}&limit=${HISTORY_PAGE}`, venue), key)) as unknown[];
    if (orders.length < HISTORY_PAGE) break;
  }
}

async function measure(label: string, accounts: number, args: string[], main?: string): Promise<void> {
  const started = performance.now();
  const venue = await startSimulatorProcess(["--accounts", String(accounts), "--api-key", KEY, ...args], main);
  const mark = (ok: boolean) => (ok ? "met" : "MISSED");
  try {
    await ask(new URL("/v1/private/account-info?collateralId=USDC", venue.url), deskAccountKey(KEY, 0, accounts));
    const firstAnswer = (performance.now() - started) / 1000;
    console.log(
      `${label}: first answer ${round1(firstAnswer)} s after the start (goal ≤ ${GOALS.firstAnswerSeconds} s: ${mark(firstAnswer <= GOALS.firstAnswerSeconds)}), RSS then ${round1(rssMB(venue.pid))} MB`,
    );
    const collaterals = ((await (await fetch(new URL("/v1/public/markets", venue.url))).json()) as Array<{ collateralAssetId: string }>)
      .map((m) => m.collateralAssetId)
      .filter((id, n, all) => all.indexOf(id) === n);
    let peak = rssMB(venue.pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMB(venue.pid));
    }, 250);
    const askedFrom = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < accounts) await collect(venue.url, next++, accounts, collaterals);
      }),
    );
    clearInterval(sampler);
    peak = Math.max(peak, rssMB(venue.pid));
    console.log(
      `${label}: every account collected once in ${round1((performance.now() - askedFrom) / 1000)} s (${collaterals.join(", ")}, active orders, history pages of ${HISTORY_PAGE}); ` +
        `RSS then ${round1(rssMB(venue.pid))} MB, at most ${round1(peak)} MB (goal ≤ ${GOALS.rssMB} MB: ${mark(peak <= GOALS.rssMB)})`,
    );
  } finally {
    await venue.close();
  }
}

const accounts = positiveInteger("BENCH_ACCOUNTS", 10_000);
const args = (process.env.BENCH_SIM_ARGS ?? "").split(/\s+/).filter(Boolean);
console.log(`Node ${process.version}; simulator ${["--accounts", String(accounts), ...args].join(" ")}, asked by ${CONCURRENCY} clients at once`);
await measure("this build", accounts, args);
const base = process.env.BENCH_BASE;
if (base !== undefined && base !== "") await measure(`base (${base})`, accounts, args, baseSimulator(base));
