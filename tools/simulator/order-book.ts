// An account's active and historical orders at any tick, derived from the account's seed when asked: every order
// slot draws its own numbers, so the book at tick T is the same whether or not it was asked for before.
import type { OrderFactory, OrderRecord } from "./orders.js";
import { Rng } from "./prng.js";
import type { OrderStatus } from "./types.js";

const FIRST_SEQ = 100_000_000_001;
const HOUR_MS = 3_600_000;
const HISTORY_SPAN_MS = 7 * 24 * HOUR_MS;
/** Active orders at start are younger than TradingActiveOrderStuck's hour, so a quiet venue pages no one. */
const ACTIVE_SPAN_MS = HOUR_MS / 2;
/** History keeps growing at the front but only the newest this many times its profile size are kept. */
const HISTORY_CAP_FACTOR = 3;

const INITIAL_HISTORY: ReadonlyArray<readonly [OrderStatus, number]> = [
  ["FILLED", 0.5],
  ["CANCELLED", 0.22],
  ["REJECTED", 0.1],
  ["EXPIRED", 0.08],
  ["PARTIALLY_FILLED", 0.06],
  ["CREATED", 0.04],
];

function pickStatus(rng: Rng): OrderStatus {
  let r = rng.next();
  for (const [status, weight] of INITIAL_HISTORY) {
    if (r < weight) return status;
    r -= weight;
  }
  return "FILLED";
}

/** What an order slot holds, from its first draws; `rng` goes on to draw the order itself. */
type Slot =
  | { kind: "empty" }
  | { kind: "history"; rng: Rng; createdMs: number; status: OrderStatus; updatedMs: number }
  | { kind: "active"; rng: Rng; createdMs: number; finishTick: number }
  | { kind: "instant"; rng: Rng; createdMs: number; status: OrderStatus; updatedMs: number };

type Order = Exclude<Slot, { kind: "empty" }>;
const EMPTY: Slot = { kind: "empty" };
type Visit = (n: number, slot: Order) => boolean;

export interface OrderBookShape {
  activeOrders: number;
  historyOrders: number;
  epochMs: number;
  tickMs: number;
}

/**
 * Slot n holds order id FIRST_SEQ + n. Slots [0, H) are the history at the start, spread over the week before it;
 * [H, H + A) the active orders at the start, from its last half hour; then every tick k has `perTick` slots, each
 * empty, an order that rests for a while or a market order that lands in the history at once. A resting order from
 * a tick lives 1 to `maxLife` ticks, one from the start the rest of such a life, so about A are active at any tick;
 * a finished one joins the history in its place by id, and the history keeps its newest `cap`.
 */
export class OrderBook {
  readonly #streamSeed: number;
  readonly #active: number;
  readonly #history: number;
  readonly #perTick: number;
  readonly #restingShare: number;
  readonly #maxLife: number;
  readonly #cap: number;

  constructor(
    private readonly factory: OrderFactory,
    accountSeed: number,
    private readonly shape: OrderBookShape,
  ) {
    this.#streamSeed = Rng.streamSeed(accountSeed, "orders");
    this.#active = shape.activeOrders;
    this.#history = shape.historyOrders;
    // Per tick, on average, churn / 2 new resting orders and instant / 2 market orders.
    const churn = this.#active > 0 ? Math.max(2, Math.ceil(this.#active * 0.005)) : 0;
    const instant = this.#history > 0 ? Math.max(1, Math.ceil(this.#history * 0.005)) : 0;
    this.#perTick = churn + instant;
    this.#restingShare = this.#perTick > 0 ? churn / this.#perTick : 0;
    this.#maxLife = churn > 0 ? Math.max(1, Math.round((4 * this.#active) / churn) - 1) : 1;
    this.#cap = HISTORY_CAP_FACTOR * this.#history;
  }

  /** The simulated clock at `tick`: tick k's orders were created after its value at k - 1, up to its value at k. */
  #timeAt(tick: number): number {
    return this.shape.epochMs + tick * this.shape.tickMs;
  }

  #slot(n: number): Slot {
    const rng = Rng.item(this.#streamSeed, n);
    const { epochMs } = this.shape;
    if (n < this.#history) {
      const createdMs = epochMs - HISTORY_SPAN_MS + Math.floor(((n + rng.next()) * (HISTORY_SPAN_MS - HOUR_MS)) / this.#history);
      const status = pickStatus(rng);
      const settled = rng.int(20, HOUR_MS);
      return { kind: "history", rng, createdMs, status, updatedMs: status === "CREATED" ? createdMs : createdMs + settled };
    }
    if (n < this.#history + this.#active) {
      const createdMs = epochMs - ACTIVE_SPAN_MS + Math.floor(((n - this.#history + rng.next()) * ACTIVE_SPAN_MS) / this.#active);
      return { kind: "active", rng, createdMs, finishTick: Math.max(1, Math.ceil(this.#maxLife * (1 - Math.sqrt(rng.next())))) };
    }
    const offset = n - this.#history - this.#active;
    if (rng.next() >= 0.5) return EMPTY;
    const tick = 1 + Math.floor(offset / this.#perTick);
    const createdMs = this.#timeAt(tick - 1) + 1 + Math.floor((((offset % this.#perTick) + rng.next()) * (this.shape.tickMs - 1)) / this.#perTick);
    if (rng.next() < this.#restingShare) return { kind: "active", rng, createdMs, finishTick: tick + rng.int(1, this.#maxLife) };
    // One market order in a hundred rejected: normal trading, which pages no one (TradingRejectionsRising).
    const status = rng.chance(0.99) ? "FILLED" : "REJECTED";
    return { kind: "instant", rng, createdMs, status, updatedMs: Math.min(this.#timeAt(tick), createdMs + rng.int(5, 200)) };
  }

  /** The first slot of tick `tick` (from 1). */
  #firstSlotOf(tick: number): number {
    return this.#history + this.#active + (tick - 1) * this.#perTick;
  }

  #order(n: number, slot: Order, tick: number): OrderRecord {
    const seq = FIRST_SEQ + n;
    if (slot.kind === "active") {
      const created = this.factory.create(slot.rng, { seq, createdMs: slot.createdMs, status: "CREATED", mayBePending: true });
      return slot.finishTick <= tick ? this.factory.finish(slot.rng, created, this.#timeAt(slot.finishTick)) : created;
    }
    const type = slot.kind === "instant" ? "MARKET" : undefined;
    return this.factory.create(slot.rng, { seq, createdMs: slot.createdMs, status: slot.status, updatedMs: slot.updatedMs, ...(type ? { type } : {}) });
  }

  /** Visits the orders active at `tick`, newest first, until `visit` returns false. */
  #eachActive(tick: number, visit: Visit): void {
    if (this.#active === 0) return;
    for (let k = tick; k >= Math.max(1, tick - this.#maxLife + 1); k--) {
      for (let n = this.#firstSlotOf(k + 1) - 1; n >= this.#firstSlotOf(k); n--) {
        const slot = this.#slot(n);
        if (slot.kind === "active" && slot.finishTick > tick && !visit(n, slot)) return;
      }
    }
    if (tick >= this.#maxLife) return; // every order of the start has finished
    for (let n = this.#history + this.#active - 1; n >= this.#history; n--) {
      const slot = this.#slot(n);
      if (slot.kind === "active" && slot.finishTick > tick && !visit(n, slot)) return;
    }
  }

  /** Visits the history at `tick`, newest first, at most its cap, until `visit` returns false. */
  #eachInHistory(tick: number, visit: Visit): void {
    if (this.#history === 0) return;
    let kept = 0;
    const take = (n: number, slot: Order): boolean => kept++ < this.#cap && visit(n, slot);
    for (let n = this.#firstSlotOf(tick + 1) - 1; n >= this.#history; n--) {
      const slot = this.#slot(n);
      if (slot.kind === "empty" || (slot.kind === "active" && slot.finishTick > tick)) continue;
      if (!take(n, slot)) return;
    }
    for (let n = this.#history - 1; n >= 0; n--) if (!take(n, this.#slot(n) as Order)) return;
  }

  /** The orders `each` visits that match `marketId` (all when undefined), past `offset`, at most `limit`. */
  #list(each: (tick: number, visit: Visit) => void, tick: number, marketId: string | undefined, offset: number, limit: number): OrderRecord[] {
    const out: OrderRecord[] = [];
    let skipped = 0;
    if (limit === 0) return out;
    each(tick, (n, slot) => {
      // Without a filter the orders skipped need not be built.
      if (marketId === undefined && skipped < offset) return ++skipped > 0;
      const record = this.#order(n, slot, tick);
      if (marketId !== undefined && record.market.market.id !== marketId) return true;
      if (skipped < offset) skipped++;
      else out.push(record);
      return out.length < limit;
    });
    return out;
  }

  /** Active orders at `tick`, newest first. */
  activeOrders(tick: number, marketId: string | undefined, limit: number): OrderRecord[] {
    return this.#list((t, visit) => this.#eachActive(t, visit), tick, marketId, 0, limit);
  }

  /** The history at `tick`, newest first. */
  historyOrders(tick: number, marketId: string | undefined, offset: number, limit: number): OrderRecord[] {
    return this.#list((t, visit) => this.#eachInHistory(t, visit), tick, marketId, offset, limit);
  }

  activeCount(tick: number): number {
    let count = 0;
    this.#eachActive(tick, () => ++count > 0);
    return count;
  }

  historyCount(tick: number): number {
    let count = 0;
    this.#eachInHistory(tick, () => ++count > 0);
    return count;
  }
}
