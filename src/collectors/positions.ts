// One series per open position and figure, with its notional and distance to liquidation.

import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import { abs, add, type Decimal, decimalOf, exactProduct, multiply, quotient, subtract, toNumber } from "../util/decimal.js";
import type { AccountInfo, Position } from "../venue/snapshot.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";

export const LABELS = ["account", "collateral_id", "market_id", "direction"] as const;

/** Each position of the scrape with its labels (LABELS); a repeat of a market and direction merged into one (`merge`). */
export function eachPosition(scrape: ScrapeResult, use: (labels: Array<string | undefined>, p: Position) => void): void {
  for (const a of scrape.accounts) {
    for (const info of a.accountInfos) for (const p of positionsOf(info)) use([a.account, info.collateralId, p.marketId, p.direction], p);
  }
}

/** The positions of one collateral, each market and direction once: a repeat merged into the first. */
export function positionsOf(info: AccountInfo): Position[] {
  const byKey = new Map<string, Position>();
  for (const p of info.positions) {
    const key = `${p.marketId}\u0000${p.direction}`;
    const first = byKey.get(key);
    byKey.set(key, first === undefined ? p : merge(first, p));
  }
  return [...byKey.values()];
}

/** A merged position's liquidation distance: the nearer one's, which its merged average price would not give. */
const nearerDistance = new WeakMap<Position, number | undefined>();
const nearerEntry = new WeakMap<Position, number | undefined>();
/** Both legs' notionals added, known only when both prices are: the merged price alone would invent the unpriced leg's. */
const mergedNotional = new WeakMap<Position, number | undefined>();

/** The entry price a position's liquidation distance is measured from: a merged one's nearer leg's, else its own. */
export function distanceEntry(p: Position): number | undefined {
  return nearerEntry.has(p) ? nearerEntry.get(p) : p.avgExecutionPrice;
}

/** A position the venue lists, or two merged, whose size is 0: no open position. */
export function isFlat(p: Position): boolean {
  return p.size === 0;
}

const SUMMED = ["size", "marginAmount", "borrowedAmount", "realizedPnl", "maintenanceMargin"] as const;

function decimal(p: Position, field: (typeof SUMMED)[number] | "avgExecutionPrice"): Decimal | undefined {
  const value = p[field];
  const exact = field === "size" || field === "maintenanceMargin" || field === "avgExecutionPrice" ? p.exact?.[field] : undefined;
  return value === undefined ? undefined : decimalOf(value, exact);
}

/** Two positions of one market and direction as one, so the account's sums and its series' agree (docs/metrics.md). */
function merge(a: Position, b: Position): Position {
  const sums = SUMMED.map((field) => {
    const [x, y] = [decimal(a, field), decimal(b, field)];
    return x === undefined || y === undefined ? undefined : add(x, y);
  });
  const [size, , , , maintenance] = sums;
  // A leg with no price given (0 or none) has no entry to weigh; LONG 5 and LONG -5 are flat: no entry, nothing to liquidate.
  const priced = [a, b].filter((p) => (p.avgExecutionPrice ?? 0) > 0 && p.size !== undefined);
  const flat = size !== undefined && toNumber(size) === 0;
  const [sa, sb, pa, pb] = [decimal(a, "size"), decimal(b, "size"), decimal(a, "avgExecutionPrice"), decimal(b, "avgExecutionPrice")];
  const both = priced.length === 2 && size !== undefined && sa !== undefined && sb !== undefined && pa !== undefined && pb !== undefined;
  const price = flat ? undefined : both ? quotient(add(multiply(sa, pa), multiply(sb, pb)), size) : priced[0]?.avgExecutionPrice;
  const [da, db] = [liquidationDistance(a), liquidationDistance(b)];
  const near = da === undefined || (db !== undefined && db < da) ? b : a;
  const summed = Object.fromEntries(SUMMED.map((field, i) => [field, sums[i] && toNumber(sums[i])])) as Pick<Position, (typeof SUMMED)[number]>;
  const merged: Position = {
    marketId: a.marketId,
    direction: a.direction,
    ...summed,
    avgExecutionPrice: price,
    leverage: a.leverage === b.leverage ? a.leverage : undefined,
    liquidationPrice: flat ? undefined : near.liquidationPrice,
    exact: {
      ...(size === undefined ? {} : { size }),
      ...(maintenance === undefined ? {} : { maintenanceMargin: maintenance }),
      ...(flat || near.exact?.liquidationPrice === undefined ? {} : { liquidationPrice: near.exact.liquidationPrice }),
    },
  };
  nearerDistance.set(merged, flat ? undefined : near === a ? da : db);
  nearerEntry.set(merged, flat ? undefined : near.avgExecutionPrice);
  mergedNotional.set(merged, both ? toNumber(add(multiply(sa, pa), multiply(sb, pb))) : undefined);
  return merged;
}

/** Size × average execution price, from the decimals as written, rounded once. */
export function notional(p: Position): number | undefined {
  if (mergedNotional.has(p)) return mergedNotional.get(p);
  if (p.size === undefined || p.avgExecutionPrice === undefined) return undefined;
  if (p.exact === undefined) return exactProduct(p.size, p.avgExecutionPrice);
  return toNumber(multiply(decimalOf(p.size, p.exact.size), decimalOf(p.avgExecutionPrice, p.exact.avgExecutionPrice)));
}

/** LONG (avg − liq) / avg, SHORT (liq − avg) / avg; negative past the entry; unknown for other directions or a liquidation price ≤ 0 (none given). */
export function liquidationDistance(p: Position): number | undefined {
  if (nearerDistance.has(p)) return nearerDistance.get(p);
  const { avgExecutionPrice: avg, liquidationPrice: liq, direction } = p;
  if (avg === undefined || liq === undefined || liq <= 0 || avg === 0 || (direction !== "LONG" && direction !== "SHORT")) return undefined;
  const price = decimalOf(avg, p.exact?.avgExecutionPrice);
  const liquidation = decimalOf(liq, p.exact?.liquidationPrice);
  return quotient(direction === "LONG" ? subtract(price, liquidation) : subtract(liquidation, price), abs(price));
}

const FIGURES: Array<[name: string, help: string, value: (p: Position) => number | undefined]> = [
  ["size", "Position size, in units of the traded asset.", (p) => p.size],
  ["avg_execution_price", "Average execution price of the position, in collateral units per traded unit.", (p) => p.avgExecutionPrice],
  ["margin", "Margin amount of the position, in units of the collateral asset.", (p) => p.marginAmount],
  ["borrowed", "Borrowed amount of the position, in units of the collateral asset.", (p) => p.borrowedAmount],
  ["leverage", "Leverage of the position, as a multiple (ratio).", (p) => p.leverage],
  ["realized_pnl", "Realized profit and loss of the position, in units of the collateral asset.", (p) => p.realizedPnl],
  ["liquidation_price", "Liquidation price of the position, in collateral units per traded unit.", (p) => p.liquidationPrice],
  ["maintenance_margin", "Maintenance margin of the position, in units of the collateral asset.", (p) => p.maintenanceMargin],
  ["notional", "Size times average execution price, in units of the collateral asset.", notional],
  [
    "liquidation_distance_ratio",
    "Move against the position from the average execution price to the liquidation price, as a ratio of the average execution price; negative when the liquidation price is beyond the entry.",
    liquidationDistance,
  ],
];

function collect(scrape: ScrapeResult): Family[] {
  const families = FIGURES.map(([name, help]) => gauge(metricName("position", name), help, LABELS));
  eachPosition(scrape, (labels, p) => FIGURES.forEach(([, , value], i) => addSample(families[i]!, labels, value(p))));
  return families;
}

export const positions: Collector = { collect, givesWay: 6 };
