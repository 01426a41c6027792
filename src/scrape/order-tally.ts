// Order outcomes counted over the process's life from the order ids each collection reads: every (id, status) and every rejected id once.

import type { ActiveOrders, OrderHistory } from "../venue/snapshot.js";
import type { OrderCount, OrderCounts } from "./result.js";

/** The market and key an order is counted under once its account's series are at their bound. */
const FOLDED = "other";
const FOLDED_ID = `${FOLDED}\u0000${FOLDED}`;
/** One `other` series per family, for which the bound always keeps room. */
const RESERVED = 2;

export type OutcomeFamily = "orders" | "rejections";

/** An id's state is one number: the collection that last showed it, times STATE, plus REJECTED and a bit per status counted. It buys memory: at 1,000 accounts (264,000 ids) a live heap of 129.7 MB, against 143.0 MB with an object and a status string per id. */
const STATE = 256;
const REJECTED = 1;
/** An account's first seven statuses are bits of a state; later ones are listed per id (`AccountOrders.more`). */
const STATUS_BITS = 7;
/** Distinct statuses one id is counted under; past them it is counted once more under `other`, in its market (docs/order-counters.md). */
export const MAX_STATUSES_PER_ID = 16;

/** One account's order memory, kept in its store entry. */
export class AccountOrders {
  /** Every id's state (see STATE), in the order ids were first seen: the cap forgets from the front. */
  readonly seen = new Map<string, number>();
  readonly statuses: string[] = [];
  readonly more = new Map<string, string[]>();
  /** Rows are never changed, only replaced (bump): a collection's counts hold them as they were. */
  readonly orders = new Map<string, OrderCount>();
  readonly rejections = new Map<string, OrderCount>();
  /** Series of both families under the venue's own labels: all but the reserved `other` ones. */
  own = 0;
  generation = 0;
  counts: OrderCounts | undefined;

  /** Records `status` for `id` (state `state`): the status to count it under, once, or undefined if already counted. */
  countedAs(id: string, state: number, status: string): string | undefined {
    let index = this.statuses.indexOf(status);
    if (index < 0 && this.statuses.length < STATUS_BITS) index = this.statuses.push(status) - 1;
    if (index >= 0) {
      const bit = 2 << index;
      if ((state % STATE) & bit) return undefined;
      this.seen.set(id, state + bit);
      return status;
    }
    const more = this.more.get(id) ?? [];
    if (more.includes(status)) return undefined;
    let counted = more.length;
    for (let s = (state % STATE) >> 1; s > 0; s >>= 1) counted += s & 1;
    // Past the bound an id is counted once more, under `other`, and its list grows no further.
    if (counted > MAX_STATUSES_PER_ID) return undefined;
    this.more.set(id, more);
    more.push(status);
    return counted < MAX_STATUSES_PER_ID ? status : FOLDED;
  }
}

/** Adds `n` (0 makes the series exist) to (market, key), or to (other, other) if a new series would pass `maxSeries`; true if folded. */
function bump(orders: AccountOrders, family: OutcomeFamily, marketId: string, key: string, n: number, maxSeries: number): boolean {
  const counts = orders[family];
  let id = `${marketId}\u0000${key}`;
  let row = counts.get(id);
  let folded = false;
  if (row === undefined && id !== FOLDED_ID) {
    if (orders.own >= maxSeries - RESERVED) {
      [folded, id, marketId, key] = [true, FOLDED_ID, FOLDED, FOLDED];
      row = counts.get(id);
    } else orders.own++;
  }
  counts.set(id, { marketId, key, count: (row?.count ?? 0) + n });
  return folded;
}

/** Counts a collection's orders into `orders`: seen ids are forgotten once two reads in a row miss them, at most 2 × (history_max_orders + active limit) kept.
 * The first complete collection is the baseline (counts 0: no burst on restart); one missing a list changes nothing. */
export function observeOrders(
  orders: AccountOrders,
  active: ActiveOrders | undefined,
  history: OrderHistory | undefined,
  limits: { historyMaxOrders: number; maxSeries: number; onFolded: (family: OutcomeFamily, orders: number) => void },
): OrderCounts | undefined {
  if (active === undefined || history === undefined) return orders.counts;
  const { historyMaxOrders, maxSeries } = limits;
  const step = orders.generation > 0 ? 1 : 0;
  const generation = ++orders.generation;
  const folded = { orders: 0, rejections: 0 };
  for (const list of [active.orders, history.orders]) {
    for (const o of list) {
      if (o.id === undefined) continue;
      const seen = (orders.seen.get(o.id) ?? 0) % STATE;
      orders.seen.set(o.id, generation * STATE + seen);
      if (o.marketId === undefined) continue;
      const status = o.status === undefined ? undefined : orders.countedAs(o.id, generation * STATE + seen, o.status);
      if (status !== undefined && bump(orders, "orders", o.marketId, status, step, maxSeries)) folded.orders++;
      if (o.rejectionCode !== undefined && o.rejectionCode !== "" && !(seen & REJECTED)) {
        orders.seen.set(o.id, orders.seen.get(o.id)! + REJECTED);
        if (bump(orders, "rejections", o.marketId, o.rejectionCode, step, maxSeries)) folded.rejections++;
      }
    }
  }
  // Ids a cut-short read left out may show again, so are kept; a full history window leaves out only older orders.
  const fullWindow = history.orders.length >= historyMaxOrders && Object.keys(history.anomalies).length === 0;
  const whole = (!history.truncated || fullWindow) && active.orders.length < active.limit;
  forget(orders, generation, whole, 2 * (historyMaxOrders + active.limit));
  for (const family of ["orders", "rejections"] as const) if (folded[family] > 0) limits.onFolded(family, folded[family]);
  orders.counts = { orders: [...orders.orders.values()], rejections: [...orders.rejections.values()], tracked: orders.seen.size };
  return orders.counts;
}

/** Drops ids two reads have missed (only when both reads were whole), then the oldest over the cap. */
function forget(orders: AccountOrders, generation: number, whole: boolean, cap: number): void {
  const { seen, more } = orders;
  const drop = (id: string) => seen.delete(id) && more.delete(id);
  const lastSeen = (s: number) => Math.floor(s / STATE);
  if (whole) for (const [id, s] of seen) if (lastSeen(s) < generation - 1) drop(id);
  for (const [id, s] of seen) {
    if (seen.size <= cap) break;
    if (lastSeen(s) < generation) drop(id);
  }
  for (const id of seen.keys()) {
    if (seen.size <= cap) break;
    drop(id);
  }
}
