// Reads the order lists (active and history share one Order shape) into Orders.

import { createHash } from "node:crypto";
import { VenueError } from "./errors.js";
import { type FieldReporter, UNSET_PREFIX, type VenueFields, isRecord, readFields, readFlag } from "./fields.js";
import { ORDER_FLAGS, ORDER_NUMBERS, type Order } from "./snapshot.js";
import { OVER_CAP_FIELD, type ListWalk } from "./walk.js";

/** Every field the order readers may report, which SelfMetrics starts at 0 (test/known-fields.test.ts holds them equal). */
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

const HISTORY_UNUSED = new Set<string>([...ORDER_FLAGS, ...ORDER_NUMBERS]);
export const HISTORY_ORDER_FIELDS = ORDER_FIELDS.filter((f) => !HISTORY_UNUSED.has(f));

export const MAX_ORDER_ID_LENGTH = 128;

/** An order id, or a longer one's SHA-256: ids are only compared, and thousands of seen ids are kept. */
export function readOrderId(value: unknown, f: VenueFields): string | undefined {
  const id = f.id(value);
  return id !== undefined && id.length > MAX_ORDER_ID_LENGTH ? `sha256:${createHash("sha256").update(id).digest("base64url")}` : id;
}

export type OrderList = "orders_active" | "orders_history";

type LabelReader = (value: unknown, field: string) => string | undefined;

/** VenueFields.label, each distinct string read once per body: a list's orders repeat a few markets, sides and statuses. */
function labelReader(f: VenueFields, invalid: FieldReporter): LabelReader {
  const read = new Map<string, string>();
  return (value, field) => {
    const known = typeof value === "string" ? read.get(value) : undefined;
    if (known !== undefined) return known;
    let reported = false;
    const text = f.label(value, field, (name, count) => {
      reported = true;
      invalid(name, count);
    });
    if (!reported && typeof value === "string" && text !== undefined) read.set(value, text);
    return text;
  };
}

/** Every field is read tolerantly, as the reference does not say which are required; an empty rejection code is no rejection. */
function readOrder(raw: Record<string, unknown>, f: VenueFields, invalid: FieldReporter, label: LabelReader, list: OrderList): Order {
  const createdAt = f.timestampSeconds(raw.createdAt);
  if (createdAt === undefined) invalid(f.isUnset(raw.createdAt) ? `${UNSET_PREFIX}createdAt` : "createdAt");
  let rejectionCode: string | undefined;
  const rejection = raw.rejectionReason;
  if (rejection !== undefined && rejection !== null && !(isRecord(rejection) && (rejection.code === "" || rejection.code === null))) {
    if (isRecord(rejection)) rejectionCode = label(rejection.code, "rejectionReason.code");
    else invalid("rejectionReason.code");
  }
  const order: Order = {
    id: readOrderId(raw.id, f),
    marketId: label(raw.marketId, "marketId"),
    type: label(raw.type, "type"),
    side: label(raw.side, "side"),
    direction: label(raw.direction, "direction"),
    status: label(raw.status, "status"),
    createdAt,
    rejectionCode,
  };
  if (list === "orders_history") return order;
  return {
    ...order,
    ...readFields(raw, ORDER_FLAGS, readFlag, invalid),
    ...readFields(raw, ORDER_NUMBERS, f.number, invalid),
    exact: f.exact(raw, ORDER_NUMBERS),
  };
}

/** Reads each order as it is parsed, so the JSON of thousands of orders never lives at once. */
export async function readOrders(walk: ListWalk, f: VenueFields, endpoint: OrderList, invalid: FieldReporter): Promise<Order[]> {
  const orders: Order[] = [];
  const label = labelReader(f, invalid);
  const walked = await walk(undefined, invalid, (raw) => {
    if (isRecord(raw)) orders.push(readOrder(raw, f, invalid, label, endpoint));
    else invalid("[]");
  });
  if (!Array.isArray(walked.root)) throw new VenueError("invalid_schema", `${endpoint}: expected a JSON array of orders`);
  return orders;
}
