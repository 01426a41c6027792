// Pages through the order history with a request bound set by configuration, whatever the venue does.

import type { Order, OrderHistory, PagingAnomaly } from "./snapshot.js";

/** Requests left to one history read; every attempt, retries included, spends one. */
export interface RequestBudget {
  left: number;
}

/**
 * Reads pages with offset/limit until a short page (the end), the order cap, the request budget, or
 * a page that adds no order id not already read. A page longer than asked is used (up to the cap) and
 * the next offset moves past all of it, so nothing is asked for twice. Orders without an id cannot be
 * told apart and are all kept.
 */
export async function pageHistory(
  maxOrders: number,
  pageSize: number,
  budget: RequestBudget,
  fetchPage: (offset: number, limit: number) => Promise<Order[]>,
): Promise<OrderHistory> {
  const orders: Order[] = [];
  const seen = new Set<string>();
  const anomalies: Partial<Record<PagingAnomaly, number>> = {};
  const note = (kind: PagingAnomaly): void => {
    anomalies[kind] = (anomalies[kind] ?? 0) + 1;
  };
  let offset = 0;
  for (;;) {
    // Every page so far was full: more may exist, but the cap or the bound says stop.
    if (orders.length >= maxOrders || budget.left <= 0) return { orders, truncated: true, anomalies };
    const limit = Math.min(pageSize, maxOrders - orders.length);
    const page = await fetchPage(offset, limit);
    if (page.length > limit) note("more_than_asked");
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
    if (page.length < limit) return { orders, truncated: false, anomalies };
    if (added === 0) {
      note("no_progress");
      return { orders, truncated: true, anomalies };
    }
    // A page cut at the cap ends the read at the loop's first check.
    offset += page.length;
  }
}
