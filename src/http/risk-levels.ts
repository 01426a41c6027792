// The alert thresholds the status page grades by, defined once: test/status-page.test.ts holds them to the rules' literals.

/** TradingMarginRatioHigh: `trading_account_margin_ratio > 0.8` (prometheus/rules/trading.rules.yml). */
export const MARGIN_RATIO_WARNING = 0.8;
/** TradingMarginRatioCritical: `trading_account_margin_ratio > 0.9`. */
export const MARGIN_RATIO_CRITICAL = 0.9;
/** TradingPositionNearLiquidation fires below this (`trading:position_liquidation_distance_ratio:critical`). */
export const LIQUIDATION_DISTANCE_CRITICAL = 0.05;
/** TradingPositionApproachingLiquidation fires below this (`trading:position_liquidation_distance_ratio:warning`). */
export const LIQUIDATION_DISTANCE_WARNING = 0.1;

export type RiskState = "ok" | "warning" | "critical";

/** As the margin alerts judge a ratio: strictly above each threshold; +Inf (no margin left) is critical. */
export function marginState(ratio: number): RiskState {
  if (ratio > MARGIN_RATIO_CRITICAL) return "critical";
  if (ratio > MARGIN_RATIO_WARNING) return "warning";
  return "ok";
}

/**
 * As the two liquidation tiers fire: strictly below each threshold. The page shows the distance now, so
 * it does not hold a tier through the alerts' resolve band (6% and 12%): an alert may still fire there.
 */
export function liquidationState(distance: number): RiskState {
  if (distance < LIQUIDATION_DISTANCE_CRITICAL) return "critical";
  if (distance < LIQUIDATION_DISTANCE_WARNING) return "warning";
  return "ok";
}
