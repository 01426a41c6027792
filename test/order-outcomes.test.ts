// Order outcomes as counters, end to end on a tiny venue: orders that appear between two scrapes raise
// trading_orders_total and trading_order_rejections_total by exactly their number, nothing new raises
// nothing, a new exporter starts from the baseline; the memory of ids and the series stay bounded,
// and over the series cap the counters give way before the account, position and market families.

import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { AccountOrders, observeOrders } from "../src/scrape/order-tally.js";
import { configFromEnv } from "./helpers/env-config.js";
import { Exporter } from "../src/scrape-answers.js";
import { createApp } from "../src/http/app.js";
import type { RunningServer } from "../src/http/server.js";
import { listen } from "./helpers/listen.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { fixture } from "./helpers/fixtures.js";
import type { ActiveOrders, Order, OrderHistory } from "../src/venue/snapshot.js";
import { parseExposition, type ParsedSample, valueOf } from "./helpers/exposition.js";
import { order, position, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

const running: Array<{ server: RunningServer; exporter: Exporter }> = [];
let venue: TinyVenue | undefined;
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.close(100);
    await r.exporter.close();
  }
  await venue?.close();
  venue = undefined;
});

/** A new exporter (a restart) on the venue, serving /metrics; returns its scrape. */
async function exporterOn(url: string, env: Record<string, string> = {}): Promise<{ scrape: (accept?: string) => Promise<string>; reload: () => void }> {
  const config = configFromEnv({
    TRADING_BASE_URL: url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "acct",
    TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0",
    ...env,
  });
  const logger = createLogger("error", new Writable({ write: (_c, _e, done) => done() }));
  const exporter = new Exporter(config, logger, new SelfMetrics({ defaultMetrics: false }));
  const server = await listen(
    createApp({ exporter, logger, timeouts: { defaultTimeoutSeconds: 5, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 10 } }),
    "127.0.0.1",
    0,
  );
  running.push({ server, exporter });
  const scrape = async (accept?: string) => {
    const res = await fetch(new URL("/metrics", server.url), accept === undefined ? {} : { headers: { accept } });
    expect(res.status).toBe(200);
    return res.text();
  };
  return { scrape, reload: () => exporter.reload(config) };
}

const rejected = (id: number, code: string) => order(id, { status: "REJECTED", rejectionReason: { code, message: "no" } });

function orders(samples: ParsedSample[], status: string): number {
  return valueOf(samples, "trading_orders_total", { account: "acct", market_id: "BTC-USD", status });
}

function rejections(samples: ParsedSample[], code: string): number {
  return valueOf(samples, "trading_order_rejections_total", { account: "acct", market_id: "BTC-USD", code });
}

/** Counts a collection's orders into `state` under the given bounds. */
const count = (
  state: AccountOrders,
  active: ActiveOrders | undefined,
  history: OrderHistory | undefined,
  historyMaxOrders = 100,
  maxSeries = 1000,
  onFolded: (family: "orders" | "rejections", n: number) => void = () => {},
) => observeOrders(state, active, history, { historyMaxOrders, maxSeries, onFolded });

describe("order outcome counters", () => {
  it("count the orders added between two scrapes exactly, nothing on a quiet scrape, and start at the baseline after a restart", async () => {
    venue = await startTinyVenue({
      active: [order(100, { status: "CREATED", quantityFilled: 0 })],
      history: [order(1), order(2, { status: "CANCELLED" }), rejected(3, "MARGIN")],
    });
    const { scrape, reload } = await exporterOn(venue.url);
    const baseline = parseExposition(await scrape());
    // The first collection is the baseline: its series exist, at 0.
    for (const status of ["CREATED", "FILLED", "CANCELLED", "REJECTED"]) expect(orders(baseline, status)).toBe(0);
    expect(rejections(baseline, "MARGIN")).toBe(0);
    expect(valueOf(baseline, "trading_order_ids_tracked", { account: "acct" })).toBe(4);

    venue.options.history = [
      order(11),
      order(12),
      order(13),
      order(14, { status: "CANCELLED" }),
      rejected(15, "MARGIN"),
      rejected(16, "MARGIN"),
      ...(venue.options.history ?? []),
    ];
    const after = parseExposition(await scrape());
    expect(orders(after, "FILLED")).toBe(3);
    expect(orders(after, "CANCELLED")).toBe(1);
    expect(orders(after, "REJECTED")).toBe(2);
    expect(orders(after, "CREATED")).toBe(0);
    expect(rejections(after, "MARGIN")).toBe(2);
    expect(valueOf(after, "trading_order_ids_tracked", { account: "acct" })).toBe(10);

    const quiet = parseExposition(await scrape());
    const counters = (samples: ParsedSample[]) => samples.filter((s) => s.name === "trading_orders_total" || s.name === "trading_order_rejections_total");
    expect(counters(quiet)).toEqual(counters(after));

    // The active order fills: its new status counts once, its old one does not count again.
    venue.options.active = [];
    venue.options.history = [order(100), ...(venue.options.history ?? [])];
    const filled = parseExposition(await scrape());
    expect(orders(filled, "FILLED")).toBe(4);
    expect(orders(filled, "CREATED")).toBe(0);

    // A configuration reload keeps the counts: they are counters over the process's life.
    reload();
    const reloaded = parseExposition(await scrape());
    expect(orders(reloaded, "FILLED")).toBe(4);
    expect(rejections(reloaded, "MARGIN")).toBe(2);

    // A scraper that prefers OpenMetrics reads the counters in the text format, each family named with _total.
    const preferring = await scrape("application/openmetrics-text; version=1.0.0");
    expect(preferring).toContain("# TYPE trading_orders_total counter\n");
    expect(preferring).toContain("# TYPE trading_order_rejections_total counter\n");

    // A restart: every order now in the lists is the new baseline, nothing bursts.
    const restarted = parseExposition(await (await exporterOn(venue.url)).scrape());
    for (const status of ["FILLED", "CANCELLED", "REJECTED"]) expect(orders(restarted, status)).toBe(0);
    expect(rejections(restarted, "MARGIN")).toBe(0);
  });
});

function read(ids: number[], truncated = false): { active: ActiveOrders; history: OrderHistory } {
  const orderOf = (id: number): Order => ({ id: String(id), marketId: "M", status: "FILLED", rejectionCode: undefined }) as unknown as Order;
  return { active: { orders: [], limit: 1 }, history: { orders: ids.map(orderOf), truncated, askNext: 1, anomalies: {} } };
}

describe("the memory of seen order ids", () => {
  const observe = (outcomes: AccountOrders, ids: number[], truncated = false, maxOrders = 100) => {
    const { active, history } = read(ids, truncated);
    return count(outcomes, active, history, maxOrders);
  };

  it("forgets an id two whole reads in a row left out, and keeps it while the history is cut", () => {
    const outcomes = new AccountOrders();
    expect(observe(outcomes, [1, 2, 3])?.tracked).toBe(3);
    // One read of grace: an order between the two lists is not forgotten at once.
    expect(observe(outcomes, [3])?.tracked).toBe(3);
    expect(observe(outcomes, [3])?.tracked).toBe(1);
    expect(observe(outcomes, [4])?.tracked).toBe(2);
    expect(observe(outcomes, [5], true)?.tracked).toBe(3);
    expect(observe(outcomes, [5], true)?.tracked).toBe(3);
    // An active list that filled its limit is cut as well.
    const { history } = read([5]);
    const full = { orders: read([6]).history.orders, limit: 1 };
    expect(count(outcomes, full, history)?.tracked).toBe(4);
    expect(count(outcomes, full, history)?.tracked).toBe(4);
  });

  it("forgets ids that left a history full to history_max_orders: its window only moves on", () => {
    const outcomes = new AccountOrders();
    observe(outcomes, [1, 2, 3, 4], true, 4);
    observe(outcomes, [3, 4, 5, 6], true, 4);
    expect(observe(outcomes, [5, 6, 7, 8], true, 4)?.tracked).toBe(6);
    // A shorter read cut by the request bound keeps them all.
    expect(observe(outcomes, [7, 8], true, 4)?.tracked).toBe(6);
  });

  it("never keeps more than twice what one read can hold, the oldest first seen going first", () => {
    const outcomes = new AccountOrders();
    // Reads cut short (4 of history_max_orders 5): nothing is forgotten but by the cap, 2 × (5 + active limit 1) = 12.
    observe(outcomes, [1, 2, 3, 4], true, 5);
    observe(outcomes, [5, 6, 7, 8], true, 5);
    expect(observe(outcomes, [9, 10, 11, 12], true, 5)?.tracked).toBe(12);
    expect(observe(outcomes, [13, 14, 15, 16], true, 5)?.tracked).toBe(12);
    // Ids 1 to 4 were dropped: 1 seen again counts again (the documented cost of the bound).
    expect(observe(outcomes, [1, 13, 14, 15], true, 5)?.orders).toEqual([{ marketId: "M", key: "FILLED", count: 13 }]);
  });

  it("counts each status of an id once, however many it goes through and in whatever order", () => {
    const outcomes = new AccountOrders();
    const as = (status: string, id = "7"): OrderHistory =>
      ({ orders: [{ id, marketId: "M", status, rejectionCode: undefined }], truncated: false, askNext: 1, anomalies: {} }) as unknown as OrderHistory;
    const active: ActiveOrders = { orders: [], limit: 1 };
    count(outcomes, active, as("CREATED", "0")); // the baseline
    for (const status of ["CREATED", "PARTIAL", "FILLED", "PARTIAL", "CREATED", "FILLED", "PART", "ED"]) count(outcomes, active, as(status));
    const counts = Object.fromEntries((outcomes.counts?.orders ?? []).map((r) => [r.key, r.count]));
    expect(counts).toEqual({ CREATED: 1, PARTIAL: 1, FILLED: 1, PART: 1, ED: 1 });
  });

  it("counts each status once past the seventh an account shows, for every id", () => {
    const outcomes = new AccountOrders();
    const statuses = Array.from({ length: 10 }, (_, i) => `S${i}`);
    const read = (status: string): OrderHistory =>
      ({
        orders: ["1", "2"].map((id) => ({ id, marketId: "M", status, rejectionCode: undefined })),
        truncated: false,
        anomalies: {},
      }) as unknown as OrderHistory;
    const active: ActiveOrders = { orders: [], limit: 1 };
    count(outcomes, active, read("S0")); // the baseline
    for (const status of [...statuses, ...statuses]) count(outcomes, active, read(status));
    const counts = Object.fromEntries((outcomes.counts?.orders ?? []).map((r) => [r.key, r.count]));
    expect(counts).toEqual(Object.fromEntries(statuses.map((s) => [s, s === "S0" ? 0 : 2])));
  });

  it("changes nothing when a list could not be read", () => {
    const outcomes = new AccountOrders();
    const before = observe(outcomes, [1]);
    expect(count(outcomes, undefined, read([2]).history)).toBe(before);
    expect(observe(outcomes, [1])).toEqual(before);
  });
});

/** A collection of `n` orders, each with a market, status and rejection code of its own never seen before. */
function everNew(collection: number, n: number): OrderHistory {
  const orders = Array.from({ length: n }, (_, i) => ({
    id: `${collection}-${i}`,
    marketId: `M${collection}-${i}`,
    status: `S${collection}-${i}`,
    rejectionCode: `C${collection}-${i}`,
  }));
  return { orders, truncated: false, askNext: 1, anomalies: {} } as unknown as OrderHistory;
}

describe("the bound on an account's order-outcome series", () => {
  const active: ActiveOrders = { orders: [], limit: 1 };
  const series = (counts: AccountOrders["counts"]) => (counts?.orders.length ?? 0) + (counts?.rejections.length ?? 0);
  const row = (rows: readonly { marketId: string; key: string; count: number }[], marketId: string, key: string) =>
    rows.find((r) => r.marketId === marketId && r.key === key)?.count;

  it("holds at most the bound across both families and counts every new series' orders under other", () => {
    const folded = { orders: 0, rejections: 0 };
    const outcomes = new AccountOrders();
    const onFolded = (family: keyof typeof folded, n: number) => {
      folded[family] += n;
    };
    for (let collection = 0; collection < 50; collection++) {
      expect(series(count(outcomes, active, everNew(collection, 5), 100, 10, onFolded))).toBeLessThanOrEqual(10);
    }
    const counts = outcomes.counts!;
    // The baseline's first four orders took the eight series of the venue's labels; the two other series were kept free.
    expect(series(counts)).toBe(10);
    expect(counts.orders.filter((r) => r.marketId !== "other").map((r) => r.key)).toEqual(["S0-0", "S0-1", "S0-2", "S0-3"]);
    expect(counts.rejections.filter((r) => r.marketId !== "other").map((r) => r.key)).toEqual(["C0-0", "C0-1", "C0-2", "C0-3"]);
    // Every order after the baseline is counted, under other: 49 collections of 5.
    expect(row(counts.orders, "other", "other")).toBe(245);
    expect(row(counts.rejections, "other", "other")).toBe(245);
    // The baseline's fifth order was folded too (at 0).
    expect(folded).toEqual({ orders: 246, rejections: 246 });
  });

  it("keeps counting the series it holds, and a venue's own other shares the folded series", () => {
    const folded = { orders: 0, rejections: 0 };
    const outcomes = new AccountOrders();
    const onFolded = (family: keyof typeof folded, n: number) => {
      folded[family] += n;
    };
    count(outcomes, active, everNew(0, 3), 100, 4, onFolded);
    count(outcomes, active, everNew(1, 1), 100, 4, onFolded);
    const again = (id: string, marketId: string, status: string, rejectionCode: string) =>
      ({ orders: [{ id, marketId, status, rejectionCode }], truncated: false, askNext: 1, anomalies: {} }) as unknown as OrderHistory;
    count(outcomes, active, again("x", "M0-0", "S0-0", "C0-0"), 100, 4, onFolded);
    count(outcomes, active, again("y", "other", "other", "other"), 100, 4, onFolded);
    const counts = outcomes.counts!;
    expect(counts.orders).toEqual([
      { marketId: "M0-0", key: "S0-0", count: 1 },
      { marketId: "other", key: "other", count: 2 },
    ]);
    expect(counts.rejections).toEqual([
      { marketId: "M0-0", key: "C0-0", count: 1 },
      { marketId: "other", key: "other", count: 2 },
    ]);
    // Folded: the baseline's second and third orders, then collection 1's; the venue's own other is not folded.
    expect(folded).toEqual({ orders: 3, rejections: 3 });
  });

  it("on the exporter: a venue sending new markets, statuses and codes every collection keeps the bound, and the folded counter counts", async () => {
    let collection = 0;
    venue = await startTinyVenue({});
    const next = () => {
      collection++;
      venue!.options.history = Array.from({ length: 4 }, (_, i) =>
        order(collection * 10 + i, {
          marketId: `M-${collection}-${i}`,
          status: `S-${collection}-${i}`,
          rejectionReason: { code: `C-${collection}-${i}`, message: "no" },
        }),
      );
    };
    const { scrape } = await exporterOn(venue.url, { TRADING_MAX_ORDER_OUTCOME_SERIES: "6" });
    let samples: ParsedSample[] = [];
    for (let i = 0; i < 10; i++) {
      next();
      samples = parseExposition(await scrape());
      const held = samples.filter((s) => s.name === "trading_orders_total" || s.name === "trading_order_rejections_total");
      expect(held.length).toBeLessThanOrEqual(6);
    }
    const other = (name: string, label: string) => valueOf(samples, name, { account: "acct", market_id: "other", [label]: "other" });
    // Collections 2 to 10 counted 4 orders each, all under other.
    expect(other("trading_orders_total", "status")).toBe(36);
    expect(other("trading_order_rejections_total", "code")).toBe(36);
    // The baseline's third and fourth orders were folded too, at 0.
    expect(valueOf(samples, "trading_exporter_order_outcomes_folded_total", { family: "trading_orders_total" })).toBe(38);
    expect(valueOf(samples, "trading_exporter_order_outcomes_folded_total", { family: "trading_order_rejections_total" })).toBe(38);
  });
});

describe("the series cap", () => {
  // Never counted against the cap: the scrape's health and the account's alert thresholds.
  const isHealth = (name: string) => /^trading_(up|scrape_|collection_timestamp_seconds|market_list_age_seconds|account_alert_threshold)/.test(name);
  const capped = (samples: ParsedSample[]) =>
    samples.filter((s) => s.name.startsWith("trading_") && !s.name.startsWith("trading_exporter_") && !isHealth(s.name));
  const key = (s: ParsedSample) => `${s.name}${JSON.stringify(s.labels)}`;

  it("drops order counters, never an account, margin, position or market series, to fit", async () => {
    venue = await startTinyVenue({
      account: { ...(fixture("account-detailed.json") as object), positions: [position("BTC-USD"), position("ETH-USD", { direction: "SHORT" })] },
      markets: fixture("markets.json") as unknown[],
      history: Array.from({ length: 30 }, (_, i) => order(i, { status: `S${i}` })),
    });
    const whole = capped(parseExposition(await (await exporterOn(venue.url)).scrape()));
    const counters = whole.filter((s) => s.name === "trading_orders_total");
    expect(counters.length).toBe(30);
    const { scrape } = await exporterOn(venue.url, { TRADING_MAX_SERIES: String(whole.length - 20) });
    const samples = parseExposition(await scrape());
    const kept = new Set(capped(samples).map(key));
    expect(kept.size).toBe(whole.length - 20);
    const lost = whole.filter((s) => !kept.has(key(s)));
    expect(lost.length).toBe(20);
    // The order-outcome families are the first to give way (the cut family's successors in the answer too).
    expect(new Set(lost.map((s) => s.name))).toEqual(new Set(["trading_orders_total", "trading_order_ids_tracked"]));
    for (const prefix of ["trading_account_", "trading_position_", "trading_market_"]) {
      expect(capped(samples).filter((s) => s.name.startsWith(prefix)).length, prefix).toBe(whole.filter((s) => s.name.startsWith(prefix)).length);
    }
    expect(samples.some((s) => s.name === "trading_account_margin_ratio")).toBe(true);
    expect(valueOf(samples, "trading_exporter_series_dropped_total")).toBe(20);
  });
});

describe("one id's statuses", () => {
  it("are counted up to 16 distinct ones; a 17th counts once under other in its market, later ones not at all", () => {
    const outcomes = new AccountOrders();
    const read = (status: string): OrderHistory =>
      ({ orders: [{ id: "1", marketId: "M", status, rejectionCode: undefined }], truncated: false, askNext: 1, anomalies: {} }) as unknown as OrderHistory;
    const active: ActiveOrders = { orders: [], limit: 1 };
    count(outcomes, active, read("S0")); // the baseline
    for (let i = 1; i <= 40; i++) count(outcomes, active, read(`S${i}`));
    const orders = outcomes.counts?.orders ?? [];
    // S0 to S15 are 16 statuses; S16 is counted as other; S17 to S40 are not counted.
    expect(orders.filter((o) => o.key.startsWith("S")).map((o) => o.key)).toEqual(Array.from({ length: 16 }, (_, i) => `S${i}`));
    expect(orders.find((o) => o.key === "other")).toEqual({ marketId: "M", key: "other", count: 1 });
    expect(orders.reduce((n, o) => n + o.count, 0)).toBe(16);
  });
});
