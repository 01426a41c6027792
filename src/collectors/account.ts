// Account balances and margins per collateral, and the margin ratio that warns of liquidation.

import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import { ExactSum, decimalOf, quotient, subtract, toNumber, type Decimal } from "../util/decimal.js";
import type { AccountInfo } from "../venue/snapshot.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";

const LABELS = ["account", "collateral_id"] as const;

const AMOUNTS = [
  ["collateral_balance", "collateralBalance", "Collateral balance, without unrealized PnL, in units of the collateral asset."],
  ["available_margin", "availableMargin", "Margin available for opening new positions, in units of the collateral asset."],
  ["total_invested", "totalInvested", "Total invested amount as the venue reports it, in units of the collateral asset."],
  ["total_margin", "totalMargin", "Total margin (collateral balance plus unrealized PnL), in units of the collateral asset."],
  ["unrealized_pnl", "totalUnrealizedPnl", "Unrealized profit and loss of all positions, fees excluded, in units of the collateral asset."],
] as const;

/** Sum of the positions' maintenance margins, exact; unknown if any position's is. */
export function maintenanceMargin(info: AccountInfo): Decimal | undefined {
  if (!info.positionsComplete) return undefined;
  const sum = new ExactSum();
  for (const p of info.positions) {
    if (p.maintenanceMargin === undefined) return undefined;
    const exact = p.exact?.maintenanceMargin;
    if (exact === undefined) sum.add(p.maintenanceMargin);
    else sum.addDecimal(exact);
  }
  return sum.decimal;
}

/** Maintenance over total margin, 1 at liquidation; 0 with nothing to liquidate, +Inf past it (total margin ≤ 0). */
export function marginRatio(maintenance: Decimal | undefined, totalMargin: number | undefined, exact?: Decimal): number | undefined {
  if (maintenance === undefined || totalMargin === undefined) return undefined;
  if (maintenance.mantissa === 0n) return 0;
  if (totalMargin <= 0) return Number.POSITIVE_INFINITY;
  return quotient(maintenance, decimalOf(totalMargin, exact));
}

/** (total − available) / total margin from the decimals as written, in either shape; unknown when the total is 0 or less. */
export function marginUsage(info: AccountInfo): number | undefined {
  const { totalMargin: total, availableMargin: available } = info;
  if (total === undefined || available === undefined || total <= 0) return undefined;
  const totalExact = decimalOf(total, info.exact?.totalMargin);
  return quotient(subtract(totalExact, decimalOf(available, info.exact?.availableMargin)), totalExact);
}

/** The margin ratio (detailed shape only) and margin in use of one collateral, as their series carry them. */
export function marginFigures(info: AccountInfo): { ratio: number | undefined; usage: number | undefined; maintenance: Decimal | undefined } {
  const maintenance = info.shape === "detailed" ? maintenanceMargin(info) : undefined;
  const ratio = info.shape === "detailed" ? marginRatio(maintenance, info.totalMargin, info.exact?.totalMargin) : undefined;
  return { ratio, usage: marginUsage(info), maintenance };
}

function collect(scrape: ScrapeResult): Family[] {
  const g = (name: string, help: string) => gauge(metricName("account", name), help, LABELS);
  const families = AMOUNTS.map(([name, , help]) => g(name, help));
  const positions = g("positions", "Number of open positions (a count).");
  const maintenance = g(
    "maintenance_margin",
    "Sum of the open positions' maintenance margins, in units of the collateral asset (detailed account shape only).",
  );
  const ratio = g(
    "margin_ratio",
    "Maintenance margin over total margin as a 0-1 ratio, 1 meaning at liquidation; +Inf when total margin is zero or less with positions open.",
  );
  const usage = g(
    "margin_usage_ratio",
    "Share of the total margin bound by positions and orders, (total margin - available margin) / total margin, as a 0-1 ratio; absent when total margin is zero or less. Liquidation comes later, at the maintenance margin.",
  );
  for (const a of scrape.accounts) {
    for (const info of a.accountInfos) {
      const labels = [a.account, info.collateralId];
      AMOUNTS.forEach(([, field], i) => addSample(families[i] as Family, labels, info[field]));
      addSample(positions, labels, info.positionCount);
      const figures = marginFigures(info);
      addSample(usage, labels, figures.usage);
      addSample(maintenance, labels, figures.maintenance === undefined ? undefined : toNumber(figures.maintenance));
      addSample(ratio, labels, figures.ratio);
    }
  }
  return [...families, positions, usage, maintenance, ratio];
}

export const account: Collector = { collect, givesWay: 7 };
