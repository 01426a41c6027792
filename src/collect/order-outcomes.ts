// Order outcomes counted over the process's life from the order ids each collection reads: every (id, status) and every rejected id once.

import type { ActiveOrders, OrderHistory } from "../venue/snapshot.js";

export interface OrderCount {
  readonly marketId: string;
  /** The status (trading_orders_total) or the rejection code (trading_order_rejections_total). */
  readonly key: string;
  readonly count: number;
}

/** One account's counts as of a collection: a new object only when something in it changed, so its rendered text is reused otherwise. */
export interface OrderCounts {
  readonly orders: readonly OrderCount[];
  readonly rejections: readonly OrderCount[];
  /** Order ids remembered now (bounded, see OrderOutcomes). */
  readonly tracked: number;
}

/**
 * An order id's memory is one small integer in its account's map, not an object (a desk of a thousand
 * accounts remembers a quarter of a million ids, and an object each was 12 MB and as many objects for
 * every major GC to mark): the last collection that read it times GENERATION, a rejected bit, and one
 * bit per status of the account's first STATUS_BITS. Every value stays below 2^30, a small integer
 * for V8 however it is built, so a map set allocates nothing.
 */
const STATUS_BITS = 9;
const REJECTED = 1 << STATUS_BITS;
const GENERATION = REJECTED * 2;
/** Generations are renumbered before reaching this (a million collections of one account). */
const GENERATION_LIMIT = 2 ** 20;

function lastSeenOf(memory: number): number {
  return Math.floor(memory / GENERATION);
}

/** A lone surrogate: a status is a well-formed label value (wellFormedLabel), so it never holds one. */
const STATUS_SEPARATOR = "\ud800";

function hasStatus(statuses: string, status: string): boolean {
  if (statuses === status) return true;
  return statuses.length > status.length && `${STATUS_SEPARATOR}${statuses}${STATUS_SEPARATOR}`.includes(`${STATUS_SEPARATOR}${status}${STATUS_SEPARATOR}`);
}

class AccountOrders {
  /** Each id remembered, to its memory (see GENERATION). */
  readonly seen = new Map<string, number>();
  /** The bit of each of the first STATUS_BITS statuses the account showed. */
  readonly statusBits = new Map<string, number>();
  /** Statuses past those, per id, joined by STATUS_SEPARATOR: only a venue with more kinds of status than bits fills it. */
  readonly otherStatuses = new Map<string, string>();
  /** Rows are never changed, only replaced (bump): a snapshot holds them as they were. */
  readonly orders = new Map<string, OrderCount>();
  readonly rejections = new Map<string, OrderCount>();
  generation = 0;
  snapshot: OrderCounts | undefined;
  readonly #generationLimit: number;

  constructor(generationLimit: number) {
    this.#generationLimit = generationLimit;
  }

  /** The status's bit, or 0 when every bit is taken by other statuses. */
  statusBit(status: string): number {
    let bit = this.statusBits.get(status);
    if (bit === undefined) {
      if (this.statusBits.size >= STATUS_BITS) return 0;
      bit = 1 << this.statusBits.size;
      this.statusBits.set(status, bit);
    }
    return bit;
  }

  /** The next generation, renumbering the remembered ones first when it would reach the limit: only their order matters. */
  nextGeneration(): number {
    if (this.generation + 1 >= this.#generationLimit) {
      // The last read stays 1 before the next, and older ones 0: forgetting compares with those two only.
      const shift = this.generation - 1;
      for (const [id, memory] of this.seen) {
        const lastSeen = Math.max(0, lastSeenOf(memory) - shift);
        this.seen.set(id, lastSeen * GENERATION + (memory % GENERATION));
      }
      this.generation = 1;
    }
    return ++this.generation;
  }

  forget(id: string): void {
    this.seen.delete(id);
    if (this.otherStatuses.size > 0) this.otherStatuses.delete(id);
  }
}

/** Adds `n` (0 makes the series exist) to the count of (market, key): a new row, so snapshots can share the old ones. */
function bump(counts: AccountOrders["orders"], marketId: string, key: string, n: number): void {
  const id = `${marketId}\u0000${key}`;
  const row = counts.get(id);
  if (row === undefined) counts.set(id, { marketId, key, count: n });
  else if (n !== 0) counts.set(id, { marketId, key, count: row.count + n });
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
  readonly #generationLimit: number;

  /** `generationLimit`: only for tests, to see generations renumbered without a million collections. */
  constructor(generationLimit = GENERATION_LIMIT) {
    this.#generationLimit = Math.min(generationLimit, GENERATION_LIMIT);
  }

  /** The counts as they are, for a collection that did not read both order lists. */
  peek(account: string): OrderCounts | undefined {
    return this.#accounts.get(account)?.snapshot;
  }

  /**
   * Counts what this collection's reads show for the first time; the first complete collection of
   * an account is the baseline: its orders count 0 (their series exist at 0), so a restart shows no burst.
   * A collection missing either list changes nothing: a failed read must not make every id look new.
   */
  observe(account: string, active: ActiveOrders | undefined, history: OrderHistory | undefined, historyMaxOrders: number): OrderCounts | undefined {
    if (active === undefined || history === undefined) return this.peek(account);
    let state = this.#accounts.get(account);
    const baseline = state === undefined;
    if (state === undefined) {
      state = new AccountOrders(this.#generationLimit);
      this.#accounts.set(account, state);
    }
    const generation = state.nextGeneration();
    const step = baseline ? 0 : 1;
    let changed = baseline;
    for (const list of [active.orders, history.orders]) {
      for (const o of list) {
        if (o.id === undefined) continue;
        const before = state.seen.get(o.id);
        if (before === undefined) changed = true;
        let memory = before === undefined ? 0 : before % GENERATION;
        if (o.marketId !== undefined) {
          const status = o.status;
          const bit = status === undefined ? undefined : this.#newStatusBit(state, o.id, status, memory);
          if (status !== undefined && bit !== undefined) {
            memory |= bit;
            bump(state.orders, o.marketId, status, step);
            changed = true;
          }
          if (o.rejectionCode !== undefined && o.rejectionCode !== "" && (memory & REJECTED) === 0) {
            memory |= REJECTED;
            bump(state.rejections, o.marketId, o.rejectionCode, step);
            changed = true;
          }
        }
        memory += generation * GENERATION;
        if (memory !== before) state.seen.set(o.id, memory);
      }
    }
    // A read cut short (by the request bound or a paging anomaly, or an active list filling its limit)
    // may leave out ids that show again: they are kept. A history full to history_max_orders leaves out
    // only orders older than its window, which never come back into it.
    const fullWindow = history.orders.length >= historyMaxOrders && Object.keys(history.anomalies).length === 0;
    const whole = (!history.truncated || fullWindow) && active.orders.length < active.limit;
    if (this.#forget(state, generation, whole, 2 * (historyMaxOrders + active.limit))) changed = true;
    if (changed || state.snapshot === undefined) {
      state.snapshot = {
        orders: [...state.orders.values()],
        rejections: [...state.rejections.values()],
        tracked: state.seen.size,
      };
    }
    return state.snapshot;
  }

  /**
   * For a status new to the id, the bit to add to its memory (0 for a status past the bits, noted
   * among the id's other statuses instead); undefined when the id already had it.
   */
  #newStatusBit(state: AccountOrders, id: string, status: string, memory: number): number | undefined {
    const bit = state.statusBit(status);
    if (bit !== 0) return (memory & bit) === 0 ? bit : undefined;
    const others = state.otherStatuses.get(id) ?? "";
    if (hasStatus(others, status)) return undefined;
    state.otherStatuses.set(id, others === "" ? status : `${others}${STATUS_SEPARATOR}${status}`);
    return 0;
  }

  /** Drops ids two reads have missed (only when both reads were whole), then the oldest over the cap; true if any went. */
  #forget(state: AccountOrders, generation: number, whole: boolean, cap: number): boolean {
    const before = state.seen.size;
    if (whole) {
      // forEach, not for-of over entries: no [id, memory] pair is made per id, every collection.
      state.seen.forEach((memory, id) => {
        if (lastSeenOf(memory) < generation - 1) state.forget(id);
      });
    }
    if (state.seen.size > cap) {
      // Ids this read missed go first, then the oldest first seen.
      for (const [id, memory] of state.seen) {
        if (state.seen.size <= cap) break;
        if (lastSeenOf(memory) < generation) state.forget(id);
      }
      for (const id of state.seen.keys()) {
        if (state.seen.size <= cap) break;
        state.forget(id);
      }
    }
    return state.seen.size !== before;
  }
}
