// The account's active and historical orders: initial population, per-tick churn, and newest-first queries.
import type { MarketState } from "./markets.js";
import { orderBytes, type OrderFactory, type OrderRecord } from "./orders.js";
import type { Rng } from "./prng.js";
import type { OrderStatus } from "./types.js";

const FIRST_SEQ = 100_000_000_001;
const HOUR_MS = 3_600_000;
const HISTORY_SPAN_MS = 7 * 24 * HOUR_MS;
/** Active orders at start are younger than TradingActiveOrderStuck's hour, so a quiet venue pages no one. */
const ACTIVE_SPAN_MS = HOUR_MS / 2;
/** History keeps growing at the front but is trimmed at the back beyond this many times its profile size. */
export const HISTORY_CAP_FACTOR = 3;

const INITIAL_HISTORY: ReadonlyArray<readonly [OrderStatus, number]> = [
  ["FILLED", 0.5],
  ["CANCELLED", 0.22],
  ["REJECTED", 0.1],
  ["EXPIRED", 0.08],
  ["PARTIALLY_FILLED", 0.06],
  ["CREATED", 0.04],
];

export interface Fill {
  market: MarketState;
  /** quantityFilled x price, in collateral units. */
  notional: number;
}

function pickStatus(rng: Rng): OrderStatus {
  let r = rng.next();
  for (const [status, weight] of INITIAL_HISTORY) {
    if (r < weight) return status;
    r -= weight;
  }
  return "FILLED";
}

/** Ascending creation times spread over [from, to]. */
function spreadTimes(count: number, from: number, to: number, rng: Rng): number[] {
  const times = Array.from({ length: count }, () => rng.int(from, to));
  return times.sort((a, b) => a - b);
}

function mergeBySeq(a: OrderRecord[], b: OrderRecord[]): OrderRecord[] {
  const out: OrderRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.seq < y.seq)) {
      out.push(x as OrderRecord);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

function newestFirst(list: readonly OrderRecord[], marketId: string | undefined, offset: number, limit: number): OrderRecord[] {
  const out: OrderRecord[] = [];
  let skipped = 0;
  for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
    const record = list[i];
    if (record === undefined || (marketId !== undefined && record.market.market.id !== marketId)) continue;
    if (skipped < offset) skipped++;
    else out.push(record);
  }
  return out;
}

export class OrderBook {
  /** Ascending by seq (= createdAt). */
  private active: OrderRecord[] = [];
  /** Ascending by seq (= createdAt); served newest first. */
  private history: OrderRecord[] = [];
  private nextSeq = FIRST_SEQ;

  constructor(
    private readonly factory: OrderFactory,
    private readonly rng: Rng,
    private readonly activeTarget: number,
    private readonly historyTarget: number,
    nowMs: number,
  ) {
    for (const createdMs of spreadTimes(historyTarget, nowMs - HISTORY_SPAN_MS, nowMs - HOUR_MS, rng)) {
      const status = pickStatus(rng);
      const updatedMs = status === "CREATED" ? createdMs : createdMs + rng.int(20, HOUR_MS);
      this.history.push(factory.create({ seq: this.nextSeq++, createdMs, status, updatedMs }));
    }
    for (const createdMs of spreadTimes(activeTarget, nowMs - ACTIVE_SPAN_MS, nowMs, rng)) {
      this.active.push(factory.create({ seq: this.nextSeq++, createdMs, status: "CREATED", mayBePending: true }));
    }
  }

  get activeCount(): number {
    return this.active.length;
  }

  get historyCount(): number {
    return this.history.length;
  }

  activeOrders(marketId: string | undefined, limit: number): OrderRecord[] {
    return newestFirst(this.active, marketId, 0, limit);
  }

  historyOrders(marketId: string | undefined, offset: number, limit: number): OrderRecord[] {
    return newestFirst(this.history, marketId, offset, limit);
  }

  /**
   * Encode every order in the background, newest first, a slice per event-loop turn, so the first full
   * listing of a huge profile is already cheap. Returns a function that stops it.
   */
  warmInBackground(perTurn = 2_000): () => void {
    const queue = [...this.active, ...this.history].sort((a, b) => b.seq - a.seq);
    let next = 0;
    let handle: NodeJS.Immediate | undefined;
    const turn = (): void => {
      for (const end = Math.min(queue.length, next + perTurn); next < end; next++) orderBytes(queue[next] as OrderRecord);
      handle = next < queue.length ? setImmediate(turn) : undefined;
    };
    handle = setImmediate(turn);
    return () => {
      if (handle !== undefined) clearImmediate(handle);
      handle = undefined;
    };
  }

  /** Some active orders finish, new ones arrive, instant market orders land in history; returns the fills. */
  tick(prevMs: number, nowMs: number): Fill[] {
    const rng = this.rng;
    const churn = Math.max(2, Math.ceil(this.activeTarget * 0.005));
    let remove = this.activeTarget > 0 || this.active.length > 0 ? rng.int(0, churn) : 0;
    let add = this.activeTarget > 0 ? rng.int(0, churn) : 0;
    const drift = this.activeTarget - (this.active.length - remove + add);
    if (drift > 0.1 * this.activeTarget) add += Math.ceil(drift / 2);
    if (-drift > 0.1 * this.activeTarget) remove += Math.ceil(-drift / 2);
    remove = Math.min(remove, this.active.length);

    const leaving = new Set<number>();
    while (leaving.size < remove) leaving.add(rng.int(0, this.active.length - 1));
    const kept: OrderRecord[] = [];
    const finished: OrderRecord[] = [];
    this.active.forEach((record, i) => (leaving.has(i) ? finished.push(this.factory.finish(record, nowMs)) : kept.push(record)));

    const instant = this.historyTarget > 0 ? rng.int(0, Math.max(1, Math.ceil(this.historyTarget * 0.005))) : 0;
    const arrivals = [...Array.from({ length: add }, () => true), ...Array.from({ length: instant }, () => false)]
      .map((isActive) => ({ isActive, createdMs: rng.int(prevMs + 1, nowMs) }))
      .sort((a, b) => a.createdMs - b.createdMs);
    const instantDone: OrderRecord[] = [];
    for (const { isActive, createdMs } of arrivals) {
      const seq = this.nextSeq++;
      if (isActive) kept.push(this.factory.create({ seq, createdMs, status: "CREATED", mayBePending: true }));
      else {
        // One market order in a hundred rejected: normal trading, which pages no one (TradingRejectionsRising).
        const status = rng.chance(0.99) ? "FILLED" : "REJECTED";
        instantDone.push(this.factory.create({ seq, createdMs, status, type: "MARKET", updatedMs: Math.min(nowMs, createdMs + rng.int(5, 200)) }));
      }
    }
    this.active = kept;

    if (this.historyTarget > 0) {
      this.history = mergeBySeq(mergeBySeq(this.history, finished), instantDone);
      const cap = HISTORY_CAP_FACTOR * this.historyTarget;
      if (this.history.length > cap) this.history = this.history.slice(this.history.length - cap);
    }
    return [...finished, ...instantDone]
      .filter((r) => r.data.quantityFilled > 0)
      .map((r) => ({ market: r.market, notional: r.data.quantityFilled * r.data.price }));
  }
}
