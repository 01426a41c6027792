// Order outcomes counted over the process's life from the order ids each collection reads: every (id, status) and every rejected id once.

import type { ActiveOrders, OrderHistory } from "../venue/snapshot.js";

/** The market, status and code of the series an order is counted under once its account's series are at their bound. */
const FOLDED = "other";
const FOLDED_ID = `${FOLDED}\u0000${FOLDED}`;
/** One `other` series per family, for which the bound always keeps room. */
const RESERVED = 2;

/** The two counters: trading_orders_total (by status) and trading_order_rejections_total (by code). */
export type OutcomeFamily = "orders" | "rejections";

export interface OrderCount {
  readonly marketId: string;
  /** The status (trading_orders_total) or the rejection code (trading_order_rejections_total). */
  readonly key: string;
  readonly count: number;
}

/** One account's counts as of a collection. */
export interface OrderCounts {
  readonly orders: readonly OrderCount[];
  readonly rejections: readonly OrderCount[];
  /** Order ids remembered now (bounded, see OrderOutcomes). */
  readonly tracked: number;
}

/** What is remembered of one order id. */
interface SeenOrder {
  /** The last collection (the account's count of them) whose reads showed the id. */
  lastSeen: number;
  /** The statuses already counted for the id. */
  statuses: string[];
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

/**
 * Adds `n` (0 makes the series exist) to the count of (market, key) in `family`; a series that would be
 * new while the account holds `maxSeries` is counted under (other, other) instead. Returns whether it was.
 */
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

/**
 * The memory of seen ids per account. An id is forgotten once two reads in a row left it out (one
 * read of grace, for an order between the active list and the history while they are read), and
 * never more than `2 × (history_max_orders + the active list's limit)` are kept: the oldest first
 * seen go first. A forgotten id that comes back counts again, so a read that does not reach back to
 * an order can count it twice at most; ids are kept (up to the cap) while either read is cut short.
 *
 * The series are bounded too: an account holds at most `maxSeries` of both families together, two of
 * them kept for (market_id, status or code) = (other, other), where the orders of any new series go
 * once the others are taken (`onFolded` is told how many, per family). Series already held keep counting.
 */
export class OrderOutcomes {
  readonly #accounts = new Map<string, AccountOrders>();
  readonly #onFolded: (family: OutcomeFamily, orders: number) => void;

  constructor(onFolded: (family: OutcomeFamily, orders: number) => void = () => {}) {
    this.#onFolded = onFolded;
  }

  /** The counts as they are, for a collection that did not read both order lists. */
  peek(account: string): OrderCounts | undefined {
    return this.#accounts.get(account)?.counts;
  }

  /**
   * Counts what this collection's reads show for the first time; the first complete collection of
   * an account is the baseline: its orders count 0 (their series exist at 0), so a restart shows no burst.
   * A collection missing either list changes nothing: a failed read must not make every id look new.
   */
  observe(
    account: string,
    active: ActiveOrders | undefined,
    history: OrderHistory | undefined,
    historyMaxOrders: number,
    maxSeries: number,
  ): OrderCounts | undefined {
    if (active === undefined || history === undefined) return this.peek(account);
    const state = this.#accounts.get(account) ?? new AccountOrders();
    // The baseline: this account's first complete collection.
    const step = this.#accounts.has(account) ? 1 : 0;
    this.#accounts.set(account, state);
    const generation = ++state.generation;
    const folded = { orders: 0, rejections: 0 };
    for (const list of [active.orders, history.orders]) {
      for (const o of list) {
        if (o.id === undefined) continue;
        let seen = state.seen.get(o.id);
        if (seen === undefined) {
          seen = { lastSeen: generation, statuses: [], rejected: false };
          state.seen.set(o.id, seen);
        }
        seen.lastSeen = generation;
        if (o.marketId === undefined) continue;
        if (o.status !== undefined && !seen.statuses.includes(o.status)) {
          // A new array of its exact length: push would reserve room for 16 in each of thousands of ids.
          seen.statuses = seen.statuses.concat(o.status);
          if (bump(state, "orders", o.marketId, o.status, step, maxSeries)) folded.orders++;
        }
        if (o.rejectionCode !== undefined && o.rejectionCode !== "" && !seen.rejected) {
          seen.rejected = true;
          if (bump(state, "rejections", o.marketId, o.rejectionCode, step, maxSeries)) folded.rejections++;
        }
      }
    }
    // A read cut short (by the request bound or a paging anomaly, or an active list filling its limit)
    // may leave out ids that show again: they are kept. A history full to history_max_orders leaves out
    // only orders older than its window, which never come back into it.
    const fullWindow = history.orders.length >= historyMaxOrders && Object.keys(history.anomalies).length === 0;
    const whole = (!history.truncated || fullWindow) && active.orders.length < active.limit;
    forget(state.seen, generation, whole, 2 * (historyMaxOrders + active.limit));
    for (const family of ["orders", "rejections"] as const) if (folded[family] > 0) this.#onFolded(family, folded[family]);
    state.counts = { orders: [...state.orders.values()], rejections: [...state.rejections.values()], tracked: state.seen.size };
    return state.counts;
  }
}

/** Drops ids two reads have missed (only when both reads were whole), then the oldest over the cap. */
function forget(seen: Map<string, SeenOrder>, generation: number, whole: boolean, cap: number): void {
  if (whole) {
    for (const [id, s] of seen) if (s.lastSeen < generation - 1) seen.delete(id);
  }
  // Ids this read missed go first, then the oldest first seen.
  for (const [id, s] of seen) {
    if (seen.size <= cap) break;
    if (s.lastSeen < generation) seen.delete(id);
  }
  for (const id of seen.keys()) {
    if (seen.size <= cap) break;
    seen.delete(id);
  }
}
