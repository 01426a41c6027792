// Reads the order lists (active and history share one Order shape) into Orders.

import { VenueError } from "./errors.js";
import {
  type FieldReporter,
  UNSET_PREFIX,
  exactFields,
  isRecord,
  isUnsetTime,
  numberField,
  readFlag,
  readId,
  readLabel,
  readTimestampSeconds,
} from "./fields.js";
import type { Order } from "./snapshot.js";
import { OVER_CAP_FIELD, type ListWalk, walkList } from "./walk.js";

const EXACT_ORDER_FIELDS = ["price", "quantity", "quantityLocked", "quantityFilled"] as const;

/**
 * Every field name the order readers below may report as invalid, for either order list: what
 * SelfMetrics starts at 0. test/known-fields.test.ts holds it equal to what the readers report.
 */
export const ORDER_FIELDS = [
  "[]",
  "createdAt",
  "rejectionReason.code",
  "marketId",
  "type",
  "side",
  "direction",
  "status",
  "isPendingExpiration",
  "isPendingCancellation",
  "isPendingRejection",
  ...EXACT_ORDER_FIELDS,
  OVER_CAP_FIELD,
] as const;

/** The order fields the history's metrics use, and so the only ones its reader reads and may report. */
const HISTORY_UNUSED = new Set<string>(["isPendingExpiration", "isPendingCancellation", "isPendingRejection", ...EXACT_ORDER_FIELDS]);
export const HISTORY_ORDER_FIELDS = ORDER_FIELDS.filter((f) => !HISTORY_UNUSED.has(f));

/** Which list an order comes from: a history order is read without the fields only active orders' metrics use. */
export type OrderList = "orders_active" | "orders_history";

function flag(raw: Record<string, unknown>, field: string, invalid: FieldReporter): boolean | undefined {
  const value = readFlag(raw[field]);
  if (value === undefined) invalid(field);
  return value;
}

/**
 * Which fields an order must carry is "not shown" by the reference, so every field the metrics use
 * is read tolerantly: a missing or malformed one is reported and left undefined, and only the
 * series that need it are dropped. rejectionReason is optional by nature and only read when present;
 * an empty or null code (`{code: "", message: ""}`, how a venue may write "not rejected") is no
 * rejection, and not an invalid field either.
 */
function readOrder(raw: Record<string, unknown>, invalid: FieldReporter, list: OrderList): Order {
  // An unset time leaves the order out of oldest/newest figures only; it is not a malformed field.
  const createdAt = readTimestampSeconds(raw.createdAt);
  if (createdAt === undefined) invalid(isUnsetTime(raw.createdAt) ? `${UNSET_PREFIX}createdAt` : "createdAt");
  let rejectionCode: string | undefined;
  const rejection = raw.rejectionReason;
  if (rejection !== undefined && rejection !== null && !(isRecord(rejection) && (rejection.code === "" || rejection.code === null))) {
    if (isRecord(rejection)) rejectionCode = readLabel(rejection.code, "rejectionReason.code", invalid);
    else invalid("rejectionReason.code");
  }
  const id = readId(raw.id);
  const marketId = readLabel(raw.marketId, "marketId", invalid);
  const type = readLabel(raw.type, "type", invalid);
  const side = readLabel(raw.side, "side", invalid);
  const direction = readLabel(raw.direction, "direction", invalid);
  const status = readLabel(raw.status, "status", invalid);
  // A history order leaves out its flags, prices and quantities: no metric of the history reads them.
  if (list === "orders_history") return { id, marketId, type, side, direction, status, createdAt, rejectionCode };
  return {
    id,
    marketId,
    type,
    side,
    direction,
    status,
    isPendingExpiration: flag(raw, "isPendingExpiration", invalid),
    isPendingCancellation: flag(raw, "isPendingCancellation", invalid),
    isPendingRejection: flag(raw, "isPendingRejection", invalid),
    price: numberField(raw, "price", invalid),
    quantity: numberField(raw, "quantity", invalid),
    quantityLocked: numberField(raw, "quantityLocked", invalid),
    quantityFilled: numberField(raw, "quantityFilled", invalid),
    createdAt,
    rejectionCode,
    exact: exactFields(raw, EXACT_ORDER_FIELDS),
  };
}

/**
 * An order list walked within its bounds: each order read as soon as it is parsed, so the parsed
 * JSON of thousands of orders never lives all at once; at most the cap read, the rest counted.
 * An element that is not an object is reported as "[]"; a body that is not an array fails with invalid_schema.
 */
export async function readOrders(walk: ListWalk, endpoint: OrderList, invalid: FieldReporter): Promise<Order[]> {
  const orders: Order[] = [];
  const walked = await walkList(walk, undefined, invalid, (raw) => {
    if (isRecord(raw)) orders.push(readOrder(raw, invalid, endpoint));
    else invalid("[]");
  });
  if (!Array.isArray(walked.root)) throw new VenueError("invalid_schema", `${endpoint}: expected a JSON array of orders`);
  return orders;
}
