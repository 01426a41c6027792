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
  /** Serialised `data`, filled on first use; records are immutable, so it never goes stale. */
  bytes: Buffer | undefined;
}

const DAY_MS = 86_400_000;
const REJECTIONS: ReadonlyArray<readonly [string, string]> = [
  ["INSUFFICIENT_MARGIN", "Not enough available margin to place the order."],
  ["PRICE_OUT_OF_BAND", "Order price is outside the allowed band around the mark price."],
  ["MAX_POSITION_SIZE_EXCEEDED", "The resulting position would exceed the market's maximum position size."],
  ["TOO_MANY_OPEN_ORDERS", "The account has too many open orders in this market."],
];
const POST_ONLY_REJECTION = ["POST_ONLY_WOULD_TRADE", "Post-only order would trade immediately against the book."] as const;

export function orderBytes(record: OrderRecord): Buffer {
  record.bytes ??= Buffer.from(JSON.stringify(record.data));
  return record.bytes;
}

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** A JSON array of orders, concatenated from the per-order buffers (no re-encoding of unchanged orders). */
export function ordersArrayBytes(records: readonly OrderRecord[]): Buffer {
  const parts: Buffer[] = [OPEN];
  records.forEach((record, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(orderBytes(record));
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
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

export class OrderFactory {
  constructor(
    private readonly rng: Rng,
    private readonly markets: readonly MarketState[],
    readonly accountId: string,
    private readonly timeUnit: TimeUnit,
  ) {}

  private partialFill(quantity: number, m: MarketState): number {
    const s = m.market.settings;
    const steps = Math.round(quantity / s.stepSize);
    return steps < 2 ? 0 : roundToIncrement(this.rng.int(1, steps - 1) * s.stepSize, s.stepSize, s.stepPrecision);
  }

  private rejection(postOnly: boolean): { code: string; message: string } {
    const [code, message] = postOnly ? POST_ONLY_REJECTION : this.rng.pick(REJECTIONS);
    return { code, message };
  }

  create(req: CreateOrder): OrderRecord {
    const rng = this.rng;
    const market = rng.pick(this.markets);
    const s = market.market.settings;
    const type = req.type ?? (rng.chance(0.85) ? "LIMIT" : "MARKET");
    const side = rng.chance(0.5) ? "BUY" : "SELL";
    const resting = req.status === "CREATED" || req.status === "PARTIALLY_FILLED";
    const timeInForce = type === "MARKET" ? "IOC" : resting || rng.chance(0.85) ? "GTC" : "IOC";
    const postOnly = type === "LIMIT" && timeInForce === "GTC" && rng.chance(0.25);
    // Limit orders rest away from the mark; market orders cross it by up to their slippage.
    const away = type === "LIMIT" ? rng.range(0.001, 0.03) : -rng.range(0, 0.005);
    const rawPrice = market.mark * (1 + (side === "BUY" ? -away : away));
    const price = Math.max(s.tickSize, roundToIncrement(rawPrice, s.tickSize, s.tickPrecision));
    const notional = rng.logRange(20, 20_000) / market.collateral.usdValue;
    const quantity = Math.max(s.stepSize, roundToIncrement(notional / market.mark, s.stepSize, s.stepPrecision));
    let filled = 0;
    if (req.status === "FILLED") filled = quantity;
    else if (req.status === "PARTIALLY_FILLED") filled = this.partialFill(quantity, market);
    else if ((req.status === "CANCELLED" || req.status === "EXPIRED") && rng.chance(0.3)) filled = this.partialFill(quantity, market);
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
    if (req.status === "REJECTED") data.rejectionReason = this.rejection(postOnly);
    return { seq: req.seq, market, data, bytes: undefined };
  }

  /**
   * The final state of an active order; a pending flag decides its fate, otherwise mostly filled. Only a
   * pending rejection ends in REJECTED: a desk's normal day sees a rejection now and then, not a stream.
   */
  finish(record: OrderRecord, nowMs: number): OrderRecord {
    const old = record.data;
    const rng = this.rng;
    let status: OrderStatus;
    if (old.isPendingCancellation) status = "CANCELLED";
    else if (old.isPendingExpiration) status = "EXPIRED";
    else if (old.isPendingRejection) status = "REJECTED";
    else {
      const r = rng.next();
      status = r < 0.6 ? "FILLED" : r < 0.88 ? "CANCELLED" : "EXPIRED";
    }
    let filled = old.quantityFilled;
    if (status === "FILLED") filled = old.quantity;
    else if (status !== "REJECTED" && filled === 0 && rng.chance(0.3)) filled = this.partialFill(old.quantity, record.market);
    const { rejectionReason: _dropped, ...rest } = old;
    const data: Order = {
      ...rest,
      status,
      isPendingExpiration: false,
      isPendingCancellation: false,
      isPendingRejection: false,
      quantityFilled: status === "REJECTED" ? 0 : filled,
      quantityLocked: 0,
      updatedAt: msToUnit(nowMs, this.timeUnit),
    };
    if (status === "REJECTED") data.rejectionReason = this.rejection(old.postOnly);
    return { seq: record.seq, market: record.market, data, bytes: undefined };
  }
}
