// Pages through the order history with a request bound set by configuration, whatever the venue does.

import type { Order, OrderHistory, PagingAnomaly } from "./snapshot.js";

/** Requests left to one history read; every attempt, retries included, spends one. */
export interface RequestBudget {
  left: number;
}

/** Pages until a short page, the cap, the budget, or a page adding no new id; a page longer than asked is used and skipped past whole. */
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
    offset += page.length;
  }
}
