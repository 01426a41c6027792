// Order outcomes counted over the process's life from the order ids each collection reads: every (id, status) and every rejected id once.

import type { ActiveOrders, OrderHistory } from "../venue/snapshot.js";

/** The market and key an order is counted under once its account's series are at their bound. */
const FOLDED = "other";
const FOLDED_ID = `${FOLDED}\u0000${FOLDED}`;
/** One `other` series per family, for which the bound always keeps room. */
const RESERVED = 2;

export type OutcomeFamily = "orders" | "rejections";

export interface OrderCount {
  readonly marketId: string;
  /** The status (trading_orders_total) or the rejection code (trading_order_rejections_total). */
  readonly key: string;
  readonly count: number;
}

export interface OrderCounts {
  readonly orders: readonly OrderCount[];
  readonly rejections: readonly OrderCount[];
  readonly tracked: number;
}

/** Every id's statuses before its first: shared, never changed. */
const NO_STATUS: readonly string[] = [];

interface SeenOrder {
  /** The account's collection number whose reads last showed the id. */
  lastSeen: number;
  /** One status as itself, more as a list: most ids only ever show one, and a list per id was a tenth of an account's heap. */
  statuses: string | readonly string[];
  rejected: boolean;
}

class AccountOrders {
  /** In the order ids were first seen: the cap forgets from the front. */
  readonly seen = new Map<string, SeenOrder>();
  /** Rows are never changed, only replaced (bump): a collection's counts hold them as they were. */
  readonly orders = new Map<string, OrderCount>();
  readonly rejections = new Map<string, OrderCount>();
  /** Series of both families under the venue's own labels: all but the reserved `other` ones. */
  own = 0;
  generation = 0;
  counts: OrderCounts | undefined;
}

/** Adds `n` (0 makes the series exist) to (market, key), or to (other, other) if a new series would pass `maxSeries`; true if folded. */
function bump(state: AccountOrders, family: OutcomeFamily, marketId: string, key: string, n: number, maxSeries: number): boolean {
  const counts = state[family];
  let id = `${marketId}\u0000${key}`;
  let row = counts.get(id);
  let folded = false;
  if (row === undefined && id !== FOLDED_ID) {
    if (state.own >= maxSeries - RESERVED) {
      folded = true;
      id = FOLDED_ID;
      marketId = FOLDED;
      key = FOLDED;
      row = counts.get(id);
    } else state.own++;
  }
  counts.set(id, { marketId, key, count: (row?.count ?? 0) + n });
  return folded;
}

/** Seen ids per account: one is forgotten once two reads in a row miss it; at most 2 × (history_max_orders + active limit) kept. */
export class OrderOutcomes {
  readonly #accounts = new Map<string, AccountOrders>();
  readonly #onFolded: (family: OutcomeFamily, orders: number) => void;

  constructor(onFolded: (family: OutcomeFamily, orders: number) => void = () => {}) {
    this.#onFolded = onFolded;
  }

  peek(account: string): OrderCounts | undefined {
    return this.#accounts.get(account)?.counts;
  }

  /** The first complete collection is the baseline (counts 0: no burst on restart); one missing a list changes nothing. */
  observe(
    account: string,
    active: ActiveOrders | undefined,
    history: OrderHistory | undefined,
    historyMaxOrders: number,
    maxSeries: number,
  ): OrderCounts | undefined {
    if (active === undefined || history === undefined) return this.peek(account);
    const state = this.#accounts.get(account) ?? new AccountOrders();
    const step = this.#accounts.has(account) ? 1 : 0;
    this.#accounts.set(account, state);
    const generation = ++state.generation;
    const folded = { orders: 0, rejections: 0 };
    for (const list of [active.orders, history.orders]) {
      for (const o of list) {
        if (o.id === undefined) continue;
        let seen = state.seen.get(o.id);
        if (seen === undefined) {
          seen = { lastSeen: generation, statuses: NO_STATUS, rejected: false };
          state.seen.set(o.id, seen);
        }
        seen.lastSeen = generation;
        if (o.marketId === undefined) continue;
        if (o.status !== undefined && !hasStatus(seen, o.status)) {
          seen.statuses = seen.statuses === NO_STATUS ? o.status : [seen.statuses, o.status].flat();
          if (bump(state, "orders", o.marketId, o.status, step, maxSeries)) folded.orders++;
        }
        if (o.rejectionCode !== undefined && o.rejectionCode !== "" && !seen.rejected) {
          seen.rejected = true;
          if (bump(state, "rejections", o.marketId, o.rejectionCode, step, maxSeries)) folded.rejections++;
        }
      }
    }
    // Ids a cut-short read left out may show again, so are kept; a full history window leaves out only older orders.
    const fullWindow = history.orders.length >= historyMaxOrders && Object.keys(history.anomalies).length === 0;
    const whole = (!history.truncated || fullWindow) && active.orders.length < active.limit;
    forget(state.seen, generation, whole, 2 * (historyMaxOrders + active.limit));
    for (const family of ["orders", "rejections"] as const) if (folded[family] > 0) this.#onFolded(family, folded[family]);
    state.counts = { orders: [...state.orders.values()], rejections: [...state.rejections.values()], tracked: state.seen.size };
    return state.counts;
  }
}

function hasStatus(seen: SeenOrder, status: string): boolean {
  return typeof seen.statuses === "string" ? seen.statuses === status : seen.statuses.includes(status);
}

/** Drops ids two reads have missed (only when both reads were whole), then the oldest over the cap. */
function forget(seen: Map<string, SeenOrder>, generation: number, whole: boolean, cap: number): void {
  if (whole) {
    for (const [id, s] of seen) if (s.lastSeen < generation - 1) seen.delete(id);
  }
  for (const [id, s] of seen) {
    if (seen.size <= cap) break;
    if (s.lastSeen < generation) seen.delete(id);
  }
  for (const id of seen.keys()) {
    if (seen.size <= cap) break;
    seen.delete(id);
  }
}
