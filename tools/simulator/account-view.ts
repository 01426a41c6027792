// Renders an account into the reference's detailed (decimal strings, position list) or summary (numbers) shape.
import { accountFigures, type AccountState } from "./accounts.js";
import { formatDecimal, roundTo } from "./numbers.js";
import type { DetailedAccount, Position, SummaryAccount } from "./types.js";

/** Totals rounded from rounded parts, so totalMargin = collateralBalance + totalUnrealizedPnl holds to the last decimal. */
function roundedTotals(account: AccountState) {
  const d = account.collateral.decimals;
  const f = accountFigures(account);
  const collateralBalance = roundTo(f.collateralBalance, d);
  const totalUnrealizedPnl = roundTo(f.totalUnrealizedPnl, d);
  const margins = f.positions.map((p) => roundTo(p.margin, d));
  const totalInvested = roundTo(
    margins.reduce((sum, m) => sum + m, 0),
    d,
  );
  const totalMargin = roundTo(collateralBalance + totalUnrealizedPnl, d);
  return { f, d, margins, collateralBalance, totalUnrealizedPnl, totalInvested, totalMargin, availableMargin: roundTo(totalMargin - totalInvested, d) };
}

export function detailedAccount(account: AccountState): DetailedAccount {
  const t = roundedTotals(account);
  const positions = t.f.positions.map((p, i): Position => {
    const s = p.position.market.market.settings;
    const priceDecimals = Math.max(2, s.tickPrecision);
    const margin = t.margins[i] ?? 0;
    return {
      marketId: p.position.market.market.id,
      direction: p.position.direction,
      avgExecutionPrice: formatDecimal(p.position.entry, priceDecimals),
      size: formatDecimal(p.position.size, Math.max(2, s.stepPrecision)),
      marginAmount: formatDecimal(margin, t.d),
      borrowedAmount: formatDecimal(roundTo(p.position.size * p.position.entry, t.d) - margin, t.d),
      leverage: formatDecimal(p.position.leverage, 2),
      realizedPnl: formatDecimal(p.position.realizedPnl, t.d),
      liquidationPrice: formatDecimal(p.liquidationPrice, priceDecimals),
      maintenanceMargin: formatDecimal(p.maintenanceMargin, t.d),
    };
  });
  return {
    collateralBalance: formatDecimal(t.collateralBalance, t.d),
    availableMargin: formatDecimal(t.availableMargin, t.d),
    totalInvested: formatDecimal(t.totalInvested, t.d),
    totalMargin: formatDecimal(t.totalMargin, t.d),
    totalUnrealizedPnl: formatDecimal(t.totalUnrealizedPnl, t.d),
    positions,
  };
}

export function summaryAccount(account: AccountState): SummaryAccount {
  const t = roundedTotals(account);
  return {
    collateralId: account.collateral.id,
    collateralBalance: t.collateralBalance,
    availableMargin: t.availableMargin,
    totalInvested: t.totalInvested,
    totalMargin: t.totalMargin,
    totalUnrealizedPnl: t.totalUnrealizedPnl,
    positions: account.positions.length,
  };
}
