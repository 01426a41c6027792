// Reads the order lists (active and history share one Order shape) into Orders.

import { VenueError } from "./errors.js";
import { isRecord, readFlag, readLabel, readNumber, readTimestampSeconds } from "./fields.js";
import type { FieldReporter } from "./parse-account.js";
import type { Order } from "./snapshot.js";

function label(raw: Record<string, unknown>, field: string, invalid: FieldReporter): string | undefined {
  const value = readLabel(raw[field]);
  if (value === undefined) invalid(field);
  return value;
}

function num(raw: Record<string, unknown>, field: string, invalid: FieldReporter): number | undefined {
  const value = readNumber(raw[field]);
  if (value === undefined) invalid(field);
  return value;
}

function flag(raw: Record<string, unknown>, field: string, invalid: FieldReporter): boolean | undefined {
  const value = readFlag(raw[field]);
  if (value === undefined) invalid(field);
  return value;
}

/**
 * Which fields an order must carry is "not shown" by the reference, so every field the metrics use
 * is read tolerantly: a missing or malformed one is reported and left undefined, and only the
 * series that need it are dropped. rejectionReason is optional by nature and only read when present.
 * The readers above are plain functions, not closures made per order (thousands a scrape).
 */
function readOrder(raw: Record<string, unknown>, invalid: FieldReporter): Order {
  const createdAt = readTimestampSeconds(raw.createdAt);
  if (createdAt === undefined) invalid("createdAt");
  let rejectionCode: string | undefined;
  const rejection = raw.rejectionReason;
  if (rejection !== undefined && rejection !== null) {
    rejectionCode = isRecord(rejection) ? readLabel(rejection.code) : undefined;
    if (rejectionCode === undefined) invalid("rejectionReason.code");
  }
  return {
    id: readLabel(raw.id),
    marketId: label(raw, "marketId", invalid),
    type: label(raw, "type", invalid),
    side: label(raw, "side", invalid),
    direction: label(raw, "direction", invalid),
    status: label(raw, "status", invalid),
    isPendingExpiration: flag(raw, "isPendingExpiration", invalid),
    isPendingCancellation: flag(raw, "isPendingCancellation", invalid),
    isPendingRejection: flag(raw, "isPendingRejection", invalid),
    price: num(raw, "price", invalid),
    quantity: num(raw, "quantity", invalid),
    quantityLocked: num(raw, "quantityLocked", invalid),
    quantityFilled: num(raw, "quantityFilled", invalid),
    createdAt,
    rejectionCode,
  };
}

/** One element of an order list: an Order, or undefined (reported as "[]") when it is not an object. */
export function readOrderItem(raw: unknown, invalid: FieldReporter): Order | undefined {
  if (isRecord(raw)) return readOrder(raw, invalid);
  invalid("[]");
  return undefined;
}

/** The error of an order list body that is JSON but not an array. */
export function notAnOrderList(endpoint: string): VenueError {
  return new VenueError("invalid_schema", `${endpoint}: expected a JSON array of orders`);
}

/** An order list body: a JSON array of Order objects. Anything else fails with invalid_schema. */
export function parseOrders(body: unknown, endpoint: string, invalid: FieldReporter): Order[] {
  if (!Array.isArray(body)) throw notAnOrderList(endpoint);
  const orders: Order[] = [];
  for (const raw of body) {
    const order = readOrderItem(raw, invalid);
    if (order !== undefined) orders.push(order);
  }
  return orders;
}
