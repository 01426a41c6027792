// Reads an account-info body, in either of its two shapes, into an AccountInfo.

import { VenueError } from "./errors.js";
import { type Precision, exactFields, isRecord, readId, readLabel, readNumber } from "./fields.js";
import type { AccountInfo, Position } from "./snapshot.js";

export type FieldReporter = (field: string) => void;

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

function number(body: Record<string, unknown>, field: string, invalid: FieldReporter, prefix = ""): number | undefined {
  const value = readNumber(body[field]);
  if (value === undefined) invalid(prefix + field);
  return value;
}

function label(body: Record<string, unknown>, field: string, invalid: FieldReporter, prefix = ""): string | undefined {
  const value = readLabel(body[field]);
  if (value === undefined) invalid(prefix + field);
  return value;
}

function readPosition(raw: unknown, invalid: FieldReporter, precision: Precision | undefined): Position | undefined {
  if (!isRecord(raw)) {
    invalid("positions[]");
    return undefined;
  }
  const p = "positions[].";
  const position: Position = {
    marketId: label(raw, "marketId", invalid, p),
    direction: label(raw, "direction", invalid, p),
    avgExecutionPrice: undefined,
    size: undefined,
    marginAmount: undefined,
    borrowedAmount: undefined,
    leverage: undefined,
    realizedPnl: undefined,
    liquidationPrice: undefined,
    maintenanceMargin: undefined,
    exact: undefined,
  };
  for (const field of POSITION_NUMBERS) position[field] = number(raw, field, invalid, p);
  position.exact = exactFields(raw, ["size", "avgExecutionPrice", "liquidationPrice", "maintenanceMargin"] as const, precision);
  return position;
}

/**
 * The shape is told by what the body holds: a list of positions is the detailed shape, anything
 * else (a count, or no positions field) the summary shape. A body that is not an object fails the
 * endpoint with invalid_schema.
 */
export function parseAccountInfo(body: unknown, collateralId: string, invalid: FieldReporter, precision?: Precision): AccountInfo {
  if (!isRecord(body)) {
    throw new VenueError("invalid_schema", "account_info: expected a JSON object");
  }
  const detailed = Array.isArray(body.positions);
  const positions: Position[] = [];
  let complete = true;
  if (detailed) {
    // A repeated market and direction would overwrite the first series: it is reported here, kept
    // for the account's sums, and left out of the position series by the collector.
    const seen = new Set<string>();
    for (const raw of body.positions as unknown[]) {
      const position = readPosition(raw, invalid, precision);
      if (position === undefined) {
        complete = false;
        continue;
      }
      const key = `${position.marketId}\u0000${position.direction}`;
      if (seen.has(key)) invalid("positions[].marketId");
      seen.add(key);
      positions.push(position);
    }
  }
  let positionCount: number | undefined;
  if (detailed) {
    positionCount = (body.positions as unknown[]).length;
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
    collateralBalance: number(body, "collateralBalance", invalid),
    availableMargin: number(body, "availableMargin", invalid),
    totalInvested: number(body, "totalInvested", invalid),
    totalMargin: number(body, "totalMargin", invalid),
    totalUnrealizedPnl: number(body, "totalUnrealizedPnl", invalid),
    positionCount,
    positions,
    positionsComplete: complete,
    exact: exactFields(body, ["totalMargin"] as const, precision),
  };
}
