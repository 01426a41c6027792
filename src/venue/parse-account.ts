// Reads an account-info body, in either of its two shapes, into an AccountInfo.

import { VenueError } from "./errors.js";
import { type FieldReporter, exactFields, isRecord, numberField, readId, readLabel, readNumber } from "./fields.js";
import type { AccountInfo, Position } from "./snapshot.js";
import { OVER_CAP_FIELD, type ListWalk, walkList } from "./walk.js";

/** The numeric fields of a position (besides marketId and direction), as the reference lists them. */
export const POSITION_NUMBERS = [
  "avgExecutionPrice",
  "size",
  "marginAmount",
  "borrowedAmount",
  "leverage",
  "realizedPnl",
  "liquidationPrice",
  "maintenanceMargin",
] as const;

/** The account-level numbers of an account-info body. */
const ACCOUNT_NUMBERS = ["collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"] as const;

/**
 * Every field name the account-info readers below may report as invalid: what SelfMetrics starts
 * at 0. test/known-fields.test.ts holds it equal to what the readers report.
 */
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

function readPosition(raw: unknown, invalid: FieldReporter): Position | undefined {
  if (!isRecord(raw)) {
    invalid("positions[]");
    return undefined;
  }
  const num = (field: (typeof POSITION_NUMBERS)[number]) => numberField(raw, field, invalid, `positions[].${field}`);
  return {
    marketId: readLabel(raw.marketId, "positions[].marketId", invalid),
    direction: readLabel(raw.direction, "positions[].direction", invalid),
    avgExecutionPrice: num("avgExecutionPrice"),
    size: num("size"),
    marginAmount: num("marginAmount"),
    borrowedAmount: num("borrowedAmount"),
    leverage: num("leverage"),
    realizedPnl: num("realizedPnl"),
    liquidationPrice: num("liquidationPrice"),
    maintenanceMargin: num("maintenanceMargin"),
    exact: exactFields(raw, ["size", "avgExecutionPrice", "liquidationPrice", "maintenanceMargin"] as const),
  };
}

/** Reads positions one at a time: each kept, a repeated market and direction reported. */
class PositionReader {
  readonly positions: Position[] = [];
  /** Every position was an object. */
  complete = true;
  /** Positions handed to add(). */
  read = 0;
  // A repeated market and direction would overwrite the first series: it is reported here, kept
  // for the account's sums, and left out of the position series by the collector.
  readonly #seen = new Set<string>();
  readonly #invalid: FieldReporter;

  constructor(invalid: FieldReporter) {
    this.#invalid = invalid;
  }

  add(raw: unknown): void {
    this.read++;
    const position = readPosition(raw, this.#invalid);
    if (position === undefined) {
      this.complete = false;
      return;
    }
    const key = `${position.marketId}\u0000${position.direction}`;
    if (this.#seen.has(key)) this.#invalid("positions[].marketId");
    this.#seen.add(key);
    this.positions.push(position);
  }
}

/**
 * An account-info body walked within its bounds: at most the cap of positions read, the rest counted.
 * The shape is told by what the body holds: a list of positions is the detailed shape, anything
 * else (a count, or no positions field) the summary shape. A body that is not an object fails the
 * endpoint with invalid_schema. `positionCount` is how many the list held, read or not.
 */
export async function readAccountInfo(walk: ListWalk, collateralId: string, invalid: FieldReporter): Promise<AccountInfo> {
  const reader = new PositionReader(invalid);
  const { root: body, items: listed } = await walkList(walk, "positions", invalid, (raw) => reader.add(raw));
  if (!isRecord(body)) {
    throw new VenueError("invalid_schema", "account_info: expected a JSON object");
  }
  const detailed = Array.isArray(body.positions);
  let positionCount: number | undefined;
  if (detailed) {
    positionCount = listed;
  } else {
    const count = readNumber(body.positions);
    if (count === undefined || count < 0 || !Number.isInteger(count)) invalid("positions");
    else positionCount = count;
  }
  // The summary shape names its collateral: an answer for another one is a venue fault worth counting.
  if (body.collateralId !== undefined && readId(body.collateralId) !== collateralId) invalid("collateralId");
  return {
    collateralId,
    shape: detailed ? "detailed" : "summary",
    collateralBalance: numberField(body, "collateralBalance", invalid),
    availableMargin: numberField(body, "availableMargin", invalid),
    totalInvested: numberField(body, "totalInvested", invalid),
    totalMargin: numberField(body, "totalMargin", invalid),
    totalUnrealizedPnl: numberField(body, "totalUnrealizedPnl", invalid),
    positionCount,
    positions: reader.positions,
    // Positions past the cap were not read: sums over them (the margin ratio) are unknown.
    positionsComplete: reader.complete && reader.read === listed,
    exact: exactFields(body, ["totalMargin"] as const),
  };
}
