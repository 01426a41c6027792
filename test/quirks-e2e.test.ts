// The exporter against the simulator's paging quirks: one scrape never costs more history requests
// than ceil(max orders / page size), and exports what it read.

import { afterEach, describe, expect, it } from "vitest";
import type { FaultKind } from "../tools/simulator/server.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { checkMetrics } from "./helpers/promtool.js";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const BOUND = Math.ceil(1000 / 100);

describe("history paging quirks of the simulator", () => {
  const cases: Array<[FaultKind[], number]> = [
    [[], 10],
    // The first page, then two at once: the second adds nothing (no progress), the third was asked with it.
    [["history_ignores_offset"], 3],
    [["history_ignores_limit"], 1],
    [["history_ignores_offset", "history_ignores_limit"], 1],
    [["history_overlaps"], 10],
    [["history_more_than_limit"], 7],
  ];
  for (const [kinds, requests] of cases) {
    it(`${kinds.join(" + ") || "no quirk"}: ${requests} history requests per scrape, at most ${BOUND}`, async () => {
      stack = await startStack({
        venue: { historyOrders: 2500, faults: kinds.map((kind) => ({ endpoint: "orders_history", kind })) },
        env: { TRADING_HISTORY_MAX_ORDERS: "1000", TRADING_HISTORY_PAGE_SIZE: "100" },
      });
      stack.venue.resetStats();
      const text = await stack.scrape();
      const samples = parseExposition(text);
      const sent = stack.venue.stats().requests.orders_history;
      expect(sent).toBe(requests);
      expect(sent).toBeLessThanOrEqual(BOUND);
      expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_history", account: "sim" })).toBe(1);
      expect(valueOf(samples, "trading_order_history_fetched_orders", { account: "sim" })).toBeGreaterThan(0);
      expect(valueOf(samples, "trading_order_history_truncated", { account: "sim" })).toBe(1);
      expect(checkMetrics(text)).toBe("");
    });
  }

  it("odd strings and unset times leave no two series alike and every market its series", async () => {
    stack = await startStack({
      venue: {
        faults: [
          { endpoint: "*", kind: "odd_strings" },
          { endpoint: "*", kind: "unset_times" },
        ],
      },
    });
    const text = await stack.scrape();
    const samples = parseExposition(text);
    const keys = samples.map((s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The lone surrogates became U+FFFD, and the market twin they made was kept out, counted.
    expect(text).toContain("\uFFFD");
    expect(valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint: "markets", field: "id" })).toBe(1);
    expect(samples.some((s) => s.name === "trading_active_orders_oldest_created_timestamp_seconds")).toBe(true);
    expect(valueOf(samples, "trading_exporter_unset_fields_total", { endpoint: "orders_active", field: "createdAt" })).toBeGreaterThan(0);
    expect(checkMetrics(text)).toBe("");
  });
});
