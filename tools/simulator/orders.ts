// Order factory: builds Order objects with every reference field, and moves active orders to a final status.
import type { MarketState } from "./markets.js";
import { msToUnit, roundToIncrement } from "./numbers.js";
import type { Rng } from "./prng.js";
import type { Order, OrderStatus, TimeUnit } from "./types.js";

export interface OrderRecord {
  /** Creation sequence; also the numeric id, so sorting by seq is sorting by createdAt. */
  seq: number;
  market: MarketState;
  data: Order;
}

const DAY_MS = 86_400_000;
const REJECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["INSUFFICIENT_MARGIN", "Not enough available margin to place the order."],
  ["PRICE_OUT_OF_BAND", "Order price is outside the allowed band around the mark price."],
  ["MAX_POSITION_SIZE_EXCEEDED", "The resulting position would exceed the market's maximum position size."],
  ["TOO_MANY_OPEN_ORDERS", "The account has too many open orders in this market."],
];
const POST_ONLY_REJECTION = ["POST_ONLY_WOULD_TRADE", "Post-only order would trade immediately against the book."] as const;

/** A JSON array of the orders' wire objects. */
export function ordersArrayBytes(records: readonly OrderRecord[]): Buffer {
  return Buffer.from(JSON.stringify(records.map((record) => record.data)));
}

export interface CreateOrder {
  seq: number;
  createdMs: number;
  status: OrderStatus;
  /** When the order last changed; defaults to createdMs. */
  updatedMs?: number;
  type?: "MARKET" | "LIMIT";
  /** Active orders may carry one of the isPending* flags. */
  mayBePending?: boolean;
}

function partialFill(rng: Rng, quantity: number, m: MarketState): number {
  const s = m.market.settings;
  const steps = Math.round(quantity / s.stepSize);
  return steps < 2 ? 0 : roundToIncrement(rng.int(1, steps - 1) * s.stepSize, s.stepSize, s.stepPrecision);
}

function rejection(rng: Rng, postOnly: boolean): { code: string; message: string } {
  const [code, message] = postOnly ? POST_ONLY_REJECTION : rng.pick(REJECTIONS);
  return { code, message };
}

/** Builds an account's orders, each from a generator of its own, so an order is the same whenever it is built. */
export class OrderFactory {
  constructor(
    private readonly markets: readonly MarketState[],
    readonly accountId: string,
    private readonly timeUnit: TimeUnit,
  ) {}

  create(rng: Rng, req: CreateOrder): OrderRecord {
    const market = rng.pick(this.markets);
    const s = market.market.settings;
    const type = req.type ?? (rng.chance(0.85) ? "LIMIT" : "MARKET");
    const side = rng.chance(0.5) ? "BUY" : "SELL";
    const resting = req.status === "CREATED" || req.status === "PARTIALLY_FILLED";
    const timeInForce = type === "MARKET" ? "IOC" : resting || rng.chance(0.85) ? "GTC" : "IOC";
    const postOnly = type === "LIMIT" && timeInForce === "GTC" && rng.chance(0.25);
    // Limit orders rest away from the price the mark reverts to; market orders cross it by up to their slippage.
    const away = type === "LIMIT" ? rng.range(0.001, 0.03) : -rng.range(0, 0.005);
    const rawPrice = market.basePrice * (1 + (side === "BUY" ? -away : away));
    const price = Math.max(s.tickSize, roundToIncrement(rawPrice, s.tickSize, s.tickPrecision));
    const notional = rng.logRange(20, 20_000) / market.collateral.usdValue;
    const quantity = Math.max(s.stepSize, roundToIncrement(notional / market.basePrice, s.stepSize, s.stepPrecision));
    let filled = 0;
    if (req.status === "FILLED") filled = quantity;
    else if (req.status === "PARTIALLY_FILLED") filled = partialFill(rng, quantity, market);
    else if ((req.status === "CANCELLED" || req.status === "EXPIRED") && rng.chance(0.3)) filled = partialFill(rng, quantity, market);
    const pending = req.mayBePending === true ? rng.next() : 1;
    const data: Order = {
      id: String(req.seq),
      accountId: this.accountId,
      signature: [`0x${rng.hex(64)}`, `0x${rng.hex(64)}`],
      marketId: market.market.id,
      type,
      side,
      direction: side === "BUY" ? "LONG" : "SHORT",
      status: req.status,
      isPendingExpiration: pending >= 0.04 && pending < 0.06,
      isPendingCancellation: pending < 0.04,
      isPendingRejection: pending >= 0.06 && pending < 0.08,
      price,
      quantity,
      quantityLocked: resting ? roundToIncrement(quantity - filled, s.stepSize, s.stepPrecision) : 0,
      quantityFilled: filled,
      leverage: rng.int(s.minLeverage, Math.max(s.minLeverage, Math.min(s.maxLeverage, 20))),
      slippage: type === "MARKET" ? rng.pick([0.005, 0.01, 0.02]) : 0,
      postOnly,
      timeInForce,
      clientTimestamp: msToUnit(req.createdMs - rng.int(5, 400), this.timeUnit),
      createdAt: msToUnit(req.createdMs, this.timeUnit),
      updatedAt: msToUnit(req.updatedMs ?? req.createdMs, this.timeUnit),
      expiresAt: msToUnit(req.createdMs + (timeInForce === "GTC" ? 28 * DAY_MS : 10_000), this.timeUnit),
    };
    if (req.status === "REJECTED") data.rejectionReason = rejection(rng, postOnly);
    return { seq: req.seq, market, data };
  }

  /**
   * `record`, an active order just built by `create` from `rng`, in its final state at `nowMs`, drawn from `rng`
   * where `create` left it; a pending flag decides its fate, otherwise mostly filled. Only a pending rejection ends
   * in REJECTED: a desk's normal day sees a rejection now and then, not a stream.
   */
  finish(rng: Rng, record: OrderRecord, nowMs: number): OrderRecord {
    const data = record.data;
    let status: OrderStatus;
    if (data.isPendingCancellation) status = "CANCELLED";
    else if (data.isPendingExpiration) status = "EXPIRED";
    else if (data.isPendingRejection) status = "REJECTED";
    else {
      const r = rng.next();
      status = r < 0.6 ? "FILLED" : r < 0.88 ? "CANCELLED" : "EXPIRED";
    }
    let filled = data.quantityFilled;
    if (status === "FILLED") filled = data.quantity;
    else if (status !== "REJECTED" && filled === 0 && rng.chance(0.3)) filled = partialFill(rng, data.quantity, record.market);
    // In place: no one else holds an order built a moment ago, and its keys keep their order on the wire.
    data.status = status;
    data.isPendingExpiration = false;
    data.isPendingCancellation = false;
    data.isPendingRejection = false;
    data.quantityFilled = status === "REJECTED" ? 0 : filled;
    data.quantityLocked = 0;
    data.updatedAt = msToUnit(nowMs, this.timeUnit);
    if (status === "REJECTED") data.rejectionReason = rejection(rng, data.postOnly);
    return record;
  }
}
