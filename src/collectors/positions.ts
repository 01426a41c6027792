// One series per open position and figure, with its notional and distance to liquidation.

import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import { abs, decimalOf, exactProduct, multiply, quotient, subtract, toNumber } from "../util/decimal.js";
import type { Position } from "../venue/snapshot.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";

export const LABELS = ["account", "collateral_id", "market_id", "direction"] as const;

/** Each position of the scrape with its labels (LABELS), less the repeats the parser marked. */
export function eachPosition(scrape: ScrapeResult, use: (labels: Array<string | undefined>, p: Position) => void): void {
  for (const a of scrape.accounts) {
    for (const info of a.accountInfos) {
      for (const p of info.positions) if (p.repeat !== true) use([a.account, info.collateralId, p.marketId, p.direction], p);
    }
  }
}

type Figure = [name: string, help: string, value: (p: Position) => number | undefined];

/** Size × average execution price, from the decimals as written, rounded once. */
export function notional(p: Position): number | undefined {
  if (p.size === undefined || p.avgExecutionPrice === undefined) return undefined;
  if (p.exact === undefined) return exactProduct(p.size, p.avgExecutionPrice);
  return toNumber(multiply(decimalOf(p.size, p.exact.size), decimalOf(p.avgExecutionPrice, p.exact.avgExecutionPrice)));
}

/**
 * How far the price may move against the position from its average execution price before the liquidation
 * price, as a ratio of that price: LONG (avg − liq) / avg, SHORT (liq − avg) / avg. Negative when the
 * liquidation price lies beyond the entry, on the profitable side; unknown for any other direction.
 */
export function liquidationDistance(p: Position): number | undefined {
  const { avgExecutionPrice: avg, liquidationPrice: liq, direction } = p;
  if (avg === undefined || liq === undefined || avg === 0 || (direction !== "LONG" && direction !== "SHORT")) return undefined;
  const price = decimalOf(avg, p.exact?.avgExecutionPrice);
  const liquidation = decimalOf(liq, p.exact?.liquidationPrice);
  return quotient(direction === "LONG" ? subtract(price, liquidation) : subtract(liquidation, price), abs(price));
}

const FIGURES: Figure[] = [
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

export const positions: Collector = { collect };
