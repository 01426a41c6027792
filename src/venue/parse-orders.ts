// Reads the order lists (active and history share one Order shape) into Orders.

import { createHash } from "node:crypto";
import { VenueError } from "./errors.js";
import {
  type FieldReporter,
  UNSET_PREFIX,
  exactFields,
  isRecord,
  isUnsetTime,
  readField,
  readFlag,
  readId,
  readLabel,
  readNumber,
  readTimestampSeconds,
} from "./fields.js";
import { ORDER_FLAGS, ORDER_NUMBERS, type Order } from "./snapshot.js";
import { OVER_CAP_FIELD, type ListWalk, walkList } from "./walk.js";

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
  ...ORDER_FLAGS,
  ...ORDER_NUMBERS,
  OVER_CAP_FIELD,
] as const;

/** The order fields the history's metrics use, and so the only ones its reader reads and may report. */
const HISTORY_UNUSED = new Set<string>([...ORDER_FLAGS, ...ORDER_NUMBERS]);
export const HISTORY_ORDER_FIELDS = ORDER_FIELDS.filter((f) => !HISTORY_UNUSED.has(f));

/** The longest order id kept as it is. */
export const MAX_ORDER_ID_LENGTH = 128;

/**
 * An order id (readId), or for one longer than MAX_ORDER_ID_LENGTH its SHA-256 (`sha256:` and 43
 * base64url characters): ids are only compared, and the memory of seen ids keeps thousands of them.
 */
export function readOrderId(value: unknown): string | undefined {
  const id = readId(value);
  return id !== undefined && id.length > MAX_ORDER_ID_LENGTH ? `sha256:${createHash("sha256").update(id).digest("base64url")}` : id;
}

/** Which list an order comes from: a history order is read without the fields only active orders' metrics use. */
export type OrderList = "orders_active" | "orders_history";

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
  const order: Order = {
    id: readOrderId(raw.id),
    marketId: readLabel(raw.marketId, "marketId", invalid),
    type: readLabel(raw.type, "type", invalid),
    side: readLabel(raw.side, "side", invalid),
    direction: readLabel(raw.direction, "direction", invalid),
    status: readLabel(raw.status, "status", invalid),
    createdAt,
    rejectionCode,
  };
  // A history order leaves out its flags, prices and quantities: no metric of the history reads them.
  if (list === "orders_history") return order;
  // One literal of every field, not spreads of per-field objects: thousands of orders an answer share its shape.
  return {
    ...order,
    isPendingExpiration: readField(raw, "isPendingExpiration", readFlag, invalid),
    isPendingCancellation: readField(raw, "isPendingCancellation", readFlag, invalid),
    isPendingRejection: readField(raw, "isPendingRejection", readFlag, invalid),
    price: readField(raw, "price", readNumber, invalid),
    quantity: readField(raw, "quantity", readNumber, invalid),
    quantityLocked: readField(raw, "quantityLocked", readNumber, invalid),
    quantityFilled: readField(raw, "quantityFilled", readNumber, invalid),
    exact: exactFields(raw, ORDER_NUMBERS),
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
