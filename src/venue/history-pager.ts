// Pages through the order history with a request bound set by configuration, whatever the venue does: several
// pages asked at once, each used only where one page after another would have asked the same offset and limit.

import type { Order, OrderHistory, PagingAnomaly } from "./snapshot.js";

/** Requests left to one history read; every attempt, retries included, spends one. */
export type RequestBudget = { left: number };

/** Pages until a short page, the cap, the budget, or a page adding no new id; a page longer than asked is used and skipped past whole.
 * `firstBatch` pages at once (the last read's askNext, which ends in its short page: one more would be 20% more requests, enough to fill
 * venue.max_connections at 300 ms), then 2, 4, 8. Once a page comes back longer than asked, no later offset can be foretold: the rest is read one page at a time. */
export async function pageHistory(
  maxOrders: number,
  pageSize: number,
  budget: RequestBudget,
  fetchPage: (offset: number, limit: number) => Promise<Order[]>,
  firstBatch = 1,
): Promise<OrderHistory> {
  try {
    const orders: Order[] = [];
    const seen = new Set<string>();
    const anomalies: Partial<Record<PagingAnomaly, number>> = {};
    const note = (kind: PagingAnomaly): void => {
      anomalies[kind] = (anomalies[kind] ?? 0) + 1;
    };
    let offset = 0;
    let pages = 0;
    let batch = Math.max(1, firstBatch);
    let foretold = true;
    const done = (truncated: boolean): OrderHistory => ({ orders, truncated, anomalies, askNext: anomalies.more_than_asked ? 1 : Math.max(1, pages) });
    for (;;) {
      // The pages a read one after another would ask next, if each came back full and new.
      const asked: { offset: number; limit: number; page: Promise<Order[]> }[] = [];
      for (let k = 0, at = offset, have = orders.length; k < batch && budget.left > 0 && have < maxOrders; k++) {
        const limit = Math.min(pageSize, maxOrders - have);
        // Spent here, as it is asked: a retry spends its own (venue/request.ts).
        budget.left--;
        const page = fetchPage(at, limit);
        // A page past the one that ends the read is never awaited: its failure must not become an unhandled rejection.
        page.catch(() => undefined);
        asked.push({ offset: at, limit, page });
        at += limit;
        have += limit;
      }
      if (asked.length === 0) return done(true);
      for (const { offset: askedOffset, limit: askedLimit, page: pending } of asked) {
        const limit = Math.min(pageSize, maxOrders - orders.length);
        // Asked for another place than a read one page at a time would be at now: the rest of the batch is not used.
        if (askedOffset !== offset || askedLimit !== limit) {
          foretold = false;
          break;
        }
        if (orders.length >= maxOrders) break;
        const page = await pending;
        pages++;
        if (page.length > limit) {
          note("more_than_asked");
          foretold = false;
        }
        let added = 0;
        let repeats = 0;
        for (const order of page) {
          if (order.id !== undefined && seen.has(order.id)) {
            repeats++;
            continue;
          }
          if (orders.length >= maxOrders) break;
          if (order.id !== undefined) seen.add(order.id);
          orders.push(order);
          added++;
        }
        if (repeats > 0 && added > 0) note("overlap");
        if (page.length < limit) return done(false);
        if (added === 0) {
          note("no_progress");
          return done(true);
        }
        offset += page.length;
      }
      if (orders.length >= maxOrders) return done(true);
      batch = foretold ? (batch === firstBatch ? 2 : batch * 2) : 1;
    }
  } finally {
    // Pages still under way were asked past the end: none of them retries.
    budget.left = 0;
  }
}
