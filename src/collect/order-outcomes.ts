// Order outcomes counted over the process's life from the order ids each collection reads: every (id, status) and every rejected id once.

import type { ActiveOrders, OrderHistory } from "../venue/snapshot.js";

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
  generation = 0;
  counts: OrderCounts | undefined;
}

/** Adds `n` (0 makes the series exist) to the count of (market, key). */
function bump(counts: AccountOrders["orders"], marketId: string, key: string, n: number): void {
  const id = `${marketId}\u0000${key}`;
  const row = counts.get(id);
  counts.set(id, { marketId, key, count: (row?.count ?? 0) + n });
}

/**
 * The memory of seen ids per account. An id is forgotten once two reads in a row left it out (one
 * read of grace, for an order between the active list and the history while they are read), and
 * never more than `2 × (history_max_orders + the active list's limit)` are kept: the oldest first
 * seen go first. A forgotten id that comes back counts again, so a read that does not reach back to
 * an order can count it twice at most; ids are kept (up to the cap) while either read is cut short.
 */
export class OrderOutcomes {
  readonly #accounts = new Map<string, AccountOrders>();

  /** The counts as they are, for a collection that did not read both order lists. */
  peek(account: string): OrderCounts | undefined {
    return this.#accounts.get(account)?.counts;
  }

  /**
   * Counts what this collection's reads show for the first time; the first complete collection of
   * an account is the baseline: its orders count 0 (their series exist at 0), so a restart shows no burst.
   * A collection missing either list changes nothing: a failed read must not make every id look new.
   */
  observe(account: string, active: ActiveOrders | undefined, history: OrderHistory | undefined, historyMaxOrders: number): OrderCounts | undefined {
    if (active === undefined || history === undefined) return this.peek(account);
    const state = this.#accounts.get(account) ?? new AccountOrders();
    // The baseline: this account's first complete collection.
    const step = this.#accounts.has(account) ? 1 : 0;
    this.#accounts.set(account, state);
    const generation = ++state.generation;
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
          bump(state.orders, o.marketId, o.status, step);
        }
        if (o.rejectionCode !== undefined && o.rejectionCode !== "" && !seen.rejected) {
          seen.rejected = true;
          bump(state.rejections, o.marketId, o.rejectionCode, step);
        }
      }
    }
    // A read cut short (by the request bound or a paging anomaly, or an active list filling its limit)
    // may leave out ids that show again: they are kept. A history full to history_max_orders leaves out
    // only orders older than its window, which never come back into it.
    const fullWindow = history.orders.length >= historyMaxOrders && Object.keys(history.anomalies).length === 0;
    const whole = (!history.truncated || fullWindow) && active.orders.length < active.limit;
    forget(state.seen, generation, whole, 2 * (historyMaxOrders + active.limit));
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
