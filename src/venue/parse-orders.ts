// Reads the order lists (active and history share one Order shape) into Orders.

import { VenueError } from "./errors.js";
import { type Precision, UNSET_PREFIX, exactFields, isRecord, isUnsetTime, readFlag, readId, readLabel, readNumber, readTimestampSeconds } from "./fields.js";
import type { FieldReporter } from "./parse-account.js";
import type { Order } from "./snapshot.js";

const EXACT_ORDER_FIELDS = ["price", "quantity", "quantityLocked", "quantityFilled"] as const;

/**
 * Which fields an order must carry is "not shown" by the reference, so every field the metrics use
 * is read tolerantly: a missing or malformed one is reported and left undefined, and only the
 * series that need it are dropped. rejectionReason is optional by nature and only read when present.
 */
function readOrder(raw: Record<string, unknown>, invalid: FieldReporter, precision: Precision | undefined): Order {
  const label = (field: string): string | undefined => {
    const value = readLabel(raw[field]);
    if (value === undefined) invalid(field);
    return value;
  };
  const num = (field: string): number | undefined => {
    const value = readNumber(raw[field]);
    if (value === undefined) invalid(field);
    return value;
  };
  const flag = (field: string): boolean | undefined => {
    const value = readFlag(raw[field]);
    if (value === undefined) invalid(field);
    return value;
  };
  // An unset time leaves the order out of oldest/newest figures only; it is not a malformed field.
  const createdAt = readTimestampSeconds(raw.createdAt);
  if (createdAt === undefined) invalid(isUnsetTime(raw.createdAt) ? `${UNSET_PREFIX}createdAt` : "createdAt");
  let rejectionCode: string | undefined;
  const rejection = raw.rejectionReason;
  if (rejection !== undefined && rejection !== null) {
    rejectionCode = isRecord(rejection) ? readLabel(rejection.code) : undefined;
    if (rejectionCode === undefined) invalid("rejectionReason.code");
  }
  // Every Order has the same shape (exact last, usually undefined): one hidden class for 50,000 of them.
  return {
    id: readId(raw.id),
    marketId: label("marketId"),
    type: label("type"),
    side: label("side"),
    direction: label("direction"),
    status: label("status"),
    isPendingExpiration: flag("isPendingExpiration"),
    isPendingCancellation: flag("isPendingCancellation"),
    isPendingRejection: flag("isPendingRejection"),
    price: num("price"),
    quantity: num("quantity"),
    quantityLocked: num("quantityLocked"),
    quantityFilled: num("quantityFilled"),
    createdAt,
    rejectionCode,
    exact: exactFields(raw, EXACT_ORDER_FIELDS, precision),
  };
}

/** An order list body: a JSON array of Order objects. Anything else fails with invalid_schema. */
export function parseOrders(body: unknown, endpoint: string, invalid: FieldReporter, precision?: Precision): Order[] {
  if (!Array.isArray(body)) {
    throw new VenueError("invalid_schema", `${endpoint}: expected a JSON array of orders`);
  }
  const orders: Order[] = [];
  for (const raw of body) {
    if (isRecord(raw)) orders.push(readOrder(raw, invalid, precision));
    else invalid("[]");
  }
  return orders;
}
