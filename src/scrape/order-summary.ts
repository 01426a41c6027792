// What the order families need of a collection's two order lists, kept in their place until the next collection: rows of label values and numbers in flat
// arrays, so the garbage collector copies and marks a few arrays, not an object per order or per row.

import { ORDER_FLAGS, type ActiveOrders, type Order, type OrderHistory } from "../venue/snapshot.js";
import { Aggregate, Groups } from "./group.js";
import type { ActiveSummary, HistorySummary, Rows } from "./result.js";

export const GROUP_COLUMNS = ["count", "quantity", "filled", "locked", "notional"] as const;
/** The numbers of each row of ActiveSummary.markets: the oldest creation time, then the orders with each pending flag set. */
export const MARKET_COLUMNS = ["oldest", ...ORDER_FLAGS] as const;

export const rowCount = (rows: Rows): number => rows.labels.length / rows.width;

/** Row `r`'s label values after `account`: a new array, as a sample keeps it. */
export function rowLabels(rows: Rows, r: number, account: string): string[] {
  const labels = [account];
  for (let i = r * rows.width; i < (r + 1) * rows.width; i++) labels.push(rows.labels[i]!);
  return labels;
}

export const rowValue = (rows: Rows, r: number, k: number): number => rows.values[r * rows.stride + k]!;

function rowsOf<T>(groups: Groups<T>, width: number, values: (group: T) => Array<number | undefined>): Rows {
  const rows: Rows = { width, stride: 0, labels: [], values: [] };
  for (const g of groups.entries()) {
    for (let i = 0; i < width; i++) rows.labels.push(g.labels[i]!);
    const numbers = values(g.value);
    rows.stride = numbers.length;
    for (let k = 0; k < numbers.length; k++) rows.values.push(numbers[k] ?? Number.NaN);
  }
  return rows;
}

const orderLabels = (o: Order) => [o.marketId, o.side, o.direction, o.type, o.status];

/** An order with a label not given is in no group; one without a time is left out of the times and never hides its market's. */
export function summarizeActive(active: ActiveOrders): ActiveSummary {
  const groups = new Groups(() => ({ count: 0, quantity: new Aggregate(), filled: new Aggregate(), locked: new Aggregate(), notional: new Aggregate() }));
  const markets = new Groups(() => ({ created: new Aggregate(), flags: ORDER_FLAGS.map(() => new Aggregate()) }));
  for (const o of active.orders) {
    const group = groups.get(orderLabels(o));
    if (group !== undefined) {
      const exact = o.exact;
      group.count++;
      group.quantity.add(o.quantity, exact?.quantity);
      group.filled.add(o.quantityFilled, exact?.quantityFilled);
      group.locked.add(o.quantityLocked, exact?.quantityLocked);
      group.notional.addProduct(o.price, o.quantity, exact?.price, exact?.quantity);
    }
    const market = markets.get([o.marketId]);
    if (market === undefined) continue;
    if (o.createdAt !== undefined) market.created.add(o.createdAt);
    ORDER_FLAGS.forEach((flag, i) => market.flags[i]!.add(o[flag] === undefined ? undefined : Number(o[flag])));
  }
  return {
    count: active.orders.length,
    limit: active.limit,
    groups: rowsOf(groups, 5, (g) => GROUP_COLUMNS.map((c) => (c === "count" ? g.count : g[c].sum))),
    markets: rowsOf(markets, 1, (m) => MARKET_COLUMNS.map((c) => (c === "oldest" ? m.created.min : m.flags[ORDER_FLAGS.indexOf(c)]!.sum))),
  };
}

export function summarizeHistory(history: OrderHistory): HistorySummary {
  const statuses = new Groups(() => ({ n: 0 }));
  const rejections = new Groups(() => ({ n: 0 }));
  const newest = new Groups(() => new Aggregate());
  for (const o of history.orders) {
    const status = statuses.get(orderLabels(o));
    if (status !== undefined) status.n++;
    const rejected = rejections.get([o.marketId, o.rejectionCode]);
    if (rejected !== undefined) rejected.n++;
    if (o.createdAt !== undefined) newest.get([o.marketId])?.add(o.createdAt);
  }
  return {
    count: history.orders.length,
    truncated: history.truncated,
    askNext: history.askNext,
    anomalies: history.anomalies,
    statuses: rowsOf(statuses, 5, (g) => [g.n]),
    rejections: rowsOf(rejections, 2, (g) => [g.n]),
    newest: rowsOf(newest, 1, (g) => [g.max]),
  };
}
