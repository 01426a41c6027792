// Many scrapers, one collection: a burst costs the venue one request per endpoint, and past the
// in-flight limit a scrape waits briefly in the line (scrape.max_queued) for a slot, then the exporter answers 503.

import { afterEach, describe, expect, it } from "vitest";
import { configFromObject } from "./helpers/config-files.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("concurrent scrapes", () => {
  it("50 simultaneous scrapes make exactly one request per endpoint call", async () => {
    // History of 50 orders fits one page; 2 collaterals make 2 account-info calls.
    stack = await startStack({ venue: { historyOrders: 50 }, env: { TRADING_MAX_IN_FLIGHT_SCRAPES: "50" } });
    // Latency keeps the first collection in flight while the other 49 scrapes arrive.
    stack.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    stack.venue.resetStats();
    const s = stack;
    const bodies = await Promise.all(Array.from({ length: 50 }, () => s.scrape()));
    expect(stack.venue.stats().requests).toEqual({ account_info: 2, orders_active: 1, orders_history: 1, markets: 1 });
    for (const body of bodies) {
      expect(valueOf(parseExposition(body), "trading_up", { account: "sim" })).toBe(1);
    }
  });

  it("renders and counts a shared collection once: every joined scrape gets the same answer", async () => {
    stack = await startStack({ venue: { historyOrders: 50 }, env: { TRADING_MAX_IN_FLIGHT_SCRAPES: "50" } });
    stack.venue.setFaults([
      { endpoint: "orders_active", kind: "status", status: 500 },
      { endpoint: "*", kind: "latency", latencyMs: 300 },
    ]);
    const s = stack;
    const bodies = await Promise.all(Array.from({ length: 50 }, () => s.scrape()));
    expect(new Set(bodies).size).toBe(1);
    const samples = parseExposition(bodies[0]!);
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "http_5xx" })).toBe(1);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active" })).toBe(0);
  });

  it("reuses the cached market list until it expires", async () => {
    stack = await startStack({ env: { TRADING_MARKETS_CACHE_SECONDS: "60" } });
    stack.venue.resetStats();
    await stack.scrape();
    const second = parseExposition(await stack.scrape());
    expect(stack.venue.stats().requests.markets).toBe(1);
    expect(stack.venue.stats().requests.orders_active).toBe(2);
    expect(valueOf(second, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
    expect(valueOf(second, "trading_market_list_age_seconds")).toBeGreaterThanOrEqual(0);
  });

  it("does not cache a failed market list", async () => {
    stack = await startStack({ env: { TRADING_MARKETS_CACHE_SECONDS: "60" } });
    stack.venue.setFaults([{ endpoint: "markets", kind: "status", status: 500, times: 2 }]);
    const failed = parseExposition(await stack.scrape());
    expect(valueOf(failed, "trading_scrape_success", { endpoint: "markets" })).toBe(0);
    const recovered = parseExposition(await stack.scrape());
    expect(valueOf(recovered, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
  });

  it("lets a scrape over the in-flight limit wait in the line for a slot instead of answering 503", async () => {
    stack = await startStack({ env: { TRADING_MAX_IN_FLIGHT_SCRAPES: "2", TRADING_MAX_QUEUED_SCRAPES: "1", TRADING_MARKETS_CACHE_SECONDS: "0" } });
    stack.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    const s = stack;
    const slow = [s.get("/metrics"), s.get("/metrics")];
    // Both are in flight once the venue has seen their first requests.
    await expect.poll(() => s.venue.stats().requests.markets, { timeout: 2000, interval: 10 }).toBeGreaterThan(0);
    const waited = await s.get("/metrics");
    expect(waited.status).toBe(200);
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    const after = parseExposition(await s.scrape());
    expect(valueOf(after, "trading_exporter_scrapes_rejected_total")).toBe(0);
  });

  it("answers 503 when no slot frees within half the scrape's budget", async () => {
    stack = await startStack({ env: { TRADING_MAX_IN_FLIGHT_SCRAPES: "1", TRADING_MAX_QUEUED_SCRAPES: "1", TRADING_MARKETS_CACHE_SECONDS: "0" } });
    stack.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 3000 }]);
    const s = stack;
    const slow = s.get("/metrics");
    await expect.poll(() => s.venue.stats().requests.markets, { timeout: 2000, interval: 10 }).toBeGreaterThan(0);
    // A 1 s timeout: 0.5 s of budget, 0.25 s of it in the line, while the first takes 3 s.
    const rejected = await s.get("/metrics", { "X-Prometheus-Scrape-Timeout-Seconds": "1" });
    expect(rejected.status).toBe(503);
    expect(rejected.headers.get("retry-after")).toBe("1");
    expect((await slow).status).toBe(200);
    const after = parseExposition(await s.scrape());
    expect(valueOf(after, "trading_exporter_scrapes_rejected_total")).toBe(1);
  });

  it("judges a scrape that waited in the line by when it arrived: the collection fresh then is served, the venue not called", async () => {
    const accounts = ["a1", "a2"].map((name) => ({ name, collateral_ids: ["USDC"], auth: { type: "api_key", key: SIM_KEY } }));
    const scrape = { min_collection_interval_seconds: 1, max_in_flight: 1, max_queued: 1 };
    stack = await startStack({
      source: (url) => configFromObject({ venue: { base_url: url }, accounts, scrape }, { TRADING_LISTEN_ADDRESS: "127.0.0.1:0" }, process.cwd()),
    });
    const s = stack;
    const first = await s.get("/probe?target=a1");
    const stamp = valueOf(parseExposition(await first.text()), "trading_collection_timestamp_seconds", { account: "a1" });
    // a2's first collection holds the one slot for at least 1.5 s, past a1's interval.
    s.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 1500 }]);
    const before = s.venue.stats().requests.account_info ?? 0;
    const holder = s.get("/probe?target=a2");
    await expect.poll(() => s.venue.stats().requests.account_info, { timeout: 2000, interval: 10 }).toBe(before + 1);
    // Arrives a moment after a1's collection, inside its interval, and waits for the slot until after it.
    const waited = await s.get("/probe?target=a1");
    expect((await holder).status).toBe(200);
    expect(waited.status).toBe(200);
    const answer = parseExposition(await waited.text());
    expect(valueOf(answer, "trading_collection_timestamp_seconds", { account: "a1" })).toBe(stamp);
    expect(valueOf(answer, "trading_up", { account: "a1" })).toBe(1);
    expect(s.venue.stats().requests.account_info).toBe(before + 1);
  });

  it("drops and counts series over the cap", async () => {
    stack = await startStack({ env: { TRADING_MAX_SERIES: "20" } });
    const samples = parseExposition(await stack.scrape());
    // The scrape's own health and the account's thresholds are kept whole and not counted: the alerts read them.
    const health =
      /^trading_(up|scrape_success|scrape_duration_seconds|collection_timestamp_seconds|market_list_age_seconds|account_alert_threshold|account_alert_threshold_seconds)$/;
    const venue = samples.filter((s) => s.name.startsWith("trading_") && !s.name.startsWith("trading_exporter_") && !health.test(s.name));
    expect(venue).toHaveLength(20);
    expect(valueOf(samples, "trading_up")).toBe(1);
    expect(samples.filter((s) => s.name === "trading_scrape_success").length).toBeGreaterThan(1);
    expect(valueOf(samples, "trading_exporter_series_dropped_total")).toBeGreaterThan(0);
  });

  it("keeps trading_up however small the cap", async () => {
    stack = await startStack({ env: { TRADING_MAX_SERIES: "1" } });
    const samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_up")).toBe(1);
    expect(samples.filter((s) => s.name === "trading_scrape_success").every((s) => s.value === 1)).toBe(true);
    expect(valueOf(samples, "trading_exporter_series_dropped_total")).toBeGreaterThan(0);
  });
});
