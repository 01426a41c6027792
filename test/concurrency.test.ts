// Many scrapers, one collection: a burst costs the venue one request per endpoint, and a scrape that waits for
// the venue holds no slot of --web.max-requests, so a burst past it is answered 200 at the shipped defaults.

import { afterEach, describe, expect, it } from "vitest";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("concurrent scrapes", () => {
  it("50 simultaneous scrapes at the defaults: 50 answers of 200 from one request per endpoint call", async () => {
    // History of 50 orders fits one page; 2 collaterals make 2 account-info calls.
    stack = await startStack({ venue: { historyOrders: 50 } });
    // Latency keeps the first collection in flight while the other 49 scrapes arrive.
    stack.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    stack.venue.resetStats();
    const s = stack;
    const answers = await Promise.all(Array.from({ length: 50 }, () => s.get("/metrics")));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 200));
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(stack.venue.stats().requests).toEqual({ account_info: 2, orders_active: 1, orders_history: 1, markets: 1 });
    for (const body of bodies) {
      expect(valueOf(parseExposition(body), "trading_up", { account: "sim" })).toBe(1);
    }
  });

  it("renders and counts a shared collection once: every joined scrape gets the same answer", async () => {
    stack = await startStack({ venue: { historyOrders: 50 } });
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

  it("past --web.max-requests, scrapes waiting for the venue are answered 200 and none is rejected", async () => {
    stack = await startStack({ env: { TRADING_MAX_IN_FLIGHT_SCRAPES: "1", TRADING_MARKETS_CACHE_SECONDS: "0" } });
    stack.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    const s = stack;
    const scrapes = Array.from({ length: 5 }, (_, i) => s.get(i % 2 === 0 ? "/metrics" : "/probe?target=sim"));
    expect((await Promise.all(scrapes)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const after = parseExposition(await s.scrape());
    expect(valueOf(after, "trading_exporter_scrapes_rejected_total")).toBe(0);
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
