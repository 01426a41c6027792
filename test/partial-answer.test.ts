// One bad endpoint never hides another: at its deadline a scrape is answered with every endpoint that finished, each
// still running marked a timeout and counted so once, in that answer; the collection's later end serves later scrapes.

import { afterEach, describe, expect, it } from "vitest";
import { type ClockedExporter, startClockedExporter } from "./helpers/clocked-exporter.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { ACCOUNT, ACTIVE, HISTORY, order } from "./helpers/tiny-venue.js";

let rig: ClockedExporter | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const acct = { account: "acct" };

describe("a hanging account-info and a 3 s scrape timeout", () => {
  it("the first answer has the order series, the orders endpoints' success 1, and the timeout counted in it", async () => {
    // Headers sent, the body never finished: the call hangs until the collection's own 10 s deadline.
    rig = await startClockedExporter({ venue: { history: [order(1), order(2)], active: [order(3)], raw: { [ACCOUNT]: { body: "{", open: true } } } });
    const started = performance.now();
    const res = await rig.get("/metrics", "3");
    const seconds = (performance.now() - started) / 1000;
    expect(res.status).toBe(200);
    const samples = parseExposition(await res.text());
    // Answered at its own deadline (3 s less the 0.5 s offset), long before the collection's.
    expect(seconds).toBeLessThan(4);
    expect(valueOf(samples, "trading_scrape_success", { ...acct, endpoint: "account_info" })).toBe(0);
    expect(valueOf(samples, "trading_scrape_success", { ...acct, endpoint: "orders_active" })).toBe(1);
    expect(valueOf(samples, "trading_scrape_success", { ...acct, endpoint: "orders_history" })).toBe(1);
    expect(valueOf(samples, "trading_up", acct)).toBe(0);
    expect(valueOf(samples, "trading_active_orders", { ...acct, market_id: "BTC-USD", side: "BUY", direction: "LONG", type: "LIMIT", status: "FILLED" })).toBe(
      1,
    );
    expect(valueOf(samples, "trading_order_history_fetched_orders", acct)).toBe(2);
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "account_info", reason: "timeout" })).toBe(1);
    expect(valueOf(samples, "trading_exporter_upstream_calls_total", { endpoint: "account_info" })).toBe(1);
    expect(samples.some((s) => s.name === "trading_account_collateral_balance")).toBe(false);
    expect(rig.venue.requests.get(ACTIVE)).toBe(1);
    expect(rig.venue.requests.get(HISTORY)).toBe(1);
  });
});
