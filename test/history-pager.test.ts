// The history asked several pages at once: a steady account in one round trip, a grown one in two, and a venue
// whose pages come back longer than asked read one page at a time, exactly as before.

import { describe, expect, it } from "vitest";
import { pageHistory } from "../src/venue/history-pager.js";
import type { Order } from "../src/venue/snapshot.js";

/** A venue of `total` orders whose every answer takes one round trip; counts the round trips and the requests. */
function venue(total: number, extra = 0) {
  const seen = { rounds: 0, requests: 0 };
  let round: Promise<void> | undefined;
  const fetchPage = async (offset: number, limit: number): Promise<Order[]> => {
    seen.requests++;
    // Requests asked in the same tick share a round trip.
    round ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        seen.rounds++;
        round = undefined;
        resolve();
      }),
    );
    await round;
    const ids = Array.from({ length: Math.max(0, Math.min(limit + extra, total - offset)) }, (_, i) => String(offset + i));
    return ids.map((id) => ({ id }) as Order);
  };
  return { seen, fetchPage };
}

describe("pageHistory, pages at once", () => {
  it("reads a steady account in one round trip, and no more requests than one page after another, when asked its last page count", async () => {
    const first = venue(200);
    const read = await pageHistory(1000, 100, { left: 10 }, first.fetchPage);
    // A first read: one page, then two at once.
    expect(first.seen).toEqual({ rounds: 2, requests: 3 });
    expect(read.orders).toHaveLength(200);
    expect(read.askNext).toBe(3);
    const steady = venue(200);
    const again = await pageHistory(1000, 100, { left: 10 }, steady.fetchPage, read.askNext);
    expect(steady.seen).toEqual({ rounds: 1, requests: 3 });
    expect(again.orders).toHaveLength(200);
    expect(again.truncated).toBe(false);
  });

  it("reads one grown by up to two pages in two round trips", async () => {
    // Read as 100, 100 and 20 before; now three full pages at once, then two more, the second short.
    const grown = venue(410);
    const read = await pageHistory(1000, 100, { left: 10 }, grown.fetchPage, 3);
    expect(grown.seen).toEqual({ rounds: 2, requests: 5 });
    expect(read.orders).toHaveLength(410);
    expect(new Set(read.orders.map((o) => o.id)).size).toBe(410);
  });

  it("never asks past the cap or the budget, however many at once", async () => {
    const big = venue(5000);
    const budget = { left: 10 };
    const read = await pageHistory(1000, 100, budget, big.fetchPage, 50);
    expect(big.seen.requests).toBe(10);
    expect(read.orders).toHaveLength(1000);
    expect(read.truncated).toBe(true);
    expect(budget.left).toBe(0);
  });

  it("reads pages longer than asked one at a time, each used whole, and asks one page first the next time", async () => {
    const long = venue(700, 50);
    const read = await pageHistory(1000, 100, { left: 10 }, long.fetchPage, 4);
    expect(read.orders).toHaveLength(700);
    expect(new Set(read.orders.map((o) => o.id)).size).toBe(700);
    expect(read.anomalies.more_than_asked).toBeGreaterThan(0);
    expect(read.askNext).toBe(1);
  });
});
