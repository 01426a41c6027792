// Reads an account-info body, in either of its two shapes, into an AccountInfo.

import { wellFormedLabel } from "../util/label-text.js";
import { VenueError } from "./errors.js";
import { type FieldReporter, UNSET_PREFIX, type VenueFields, isRecord, readFields } from "./fields.js";
import { ACCOUNT_NUMBERS, type AccountInfo, POSITION_NUMBERS, type Position } from "./snapshot.js";
import { OVER_CAP_FIELD, type ListWalk } from "./walk.js";

/** Every field the account-info readers may report, which SelfMetrics starts at 0 (test/known-fields.test.ts holds them equal). */
export const ACCOUNT_INFO_FIELDS = [
  "positions",
  "collateralId",
  ...ACCOUNT_NUMBERS,
  "positions[]",
  "positions[].marketId",
  "positions[].direction",
  ...POSITION_NUMBERS.map((field) => `positions[].${field}`),
  OVER_CAP_FIELD,
] as const;

const LIQUIDATION_PRICE = "positions[].liquidationPrice";

function readPosition(raw: unknown, f: VenueFields, invalid: FieldReporter): Position | undefined {
  if (!isRecord(raw)) {
    invalid("positions[]");
    return undefined;
  }
  // A liquidation price absent, null, 0 or below is one the venue did not give: counted as unset, not as invalid.
  const noLiquidationPrice = f.isUnset(raw.liquidationPrice);
  if (noLiquidationPrice) invalid(`${UNSET_PREFIX}${LIQUIDATION_PRICE}`);
  const report: FieldReporter = (field, n) => {
    if (!(noLiquidationPrice && field === LIQUIDATION_PRICE)) invalid(field, n);
  };
  return {
    marketId: f.label(raw.marketId, "positions[].marketId", invalid),
    direction: readDirection(raw.direction, f, invalid),
    ...readFields(raw, POSITION_NUMBERS, f.number, report, "positions[]."),
    exact: f.exact(raw, ["size", "avgExecutionPrice", "liquidationPrice", "maintenanceMargin"] as const),
  };
}

/** A position's direction in any case, written upper case ("long" and "LONG" are one position); one not LONG or SHORT is counted. */
function readDirection(value: unknown, f: VenueFields, invalid: FieldReporter): string | undefined {
  const text = f.id(value);
  const direction = text === undefined ? undefined : wellFormedLabel(text).toUpperCase();
  if (direction !== "LONG" && direction !== "SHORT") invalid("positions[].direction");
  return direction;
}

/** A list of positions makes the detailed shape, anything else the summary; `positionCount` counts positions read or not. */
export async function readAccountInfo(walk: ListWalk, f: VenueFields, collateralId: string, invalid: FieldReporter): Promise<AccountInfo> {
  const positions: Position[] = [];
  const seen = new Set<string>();
  const { root: body, items: listed } = await walk("positions", invalid, (raw) => {
    const position = readPosition(raw, f, invalid);
    if (position === undefined) return;
    // A repeat of a market and direction is counted here; the collectors merge it into one series (positions.ts).
    const key = `${position.marketId}\u0000${position.direction}`;
    if (seen.has(key)) invalid("positions[].marketId");
    seen.add(key);
    positions.push(position);
  });
  if (!isRecord(body)) throw new VenueError("invalid_schema", "account_info: expected a JSON object");
  const detailed = Array.isArray(body.positions);
  const count = detailed ? listed : f.number(body.positions);
  const positionCount = count !== undefined && count >= 0 && Number.isInteger(count) ? count : undefined;
  if (positionCount === undefined) invalid("positions");
  // The summary shape names its collateral: an answer for another one is a venue fault worth counting.
  if (body.collateralId !== undefined && f.id(body.collateralId) !== collateralId) invalid("collateralId");
  return {
    collateralId,
    shape: detailed ? "detailed" : "summary",
    ...readFields(body, ACCOUNT_NUMBERS, f.number, invalid),
    positionCount,
    positions,
    positionsComplete: positions.length === listed,
    exact: f.exact(body, ["totalMargin", "availableMargin"] as const),
  };
}
