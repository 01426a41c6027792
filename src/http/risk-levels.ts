// The alert thresholds the status page grades by, defined once: test/status-page.test.ts holds them to the rules' literals.

/** TradingMarginRatioHigh: `trading_account_margin_ratio > 0.8` (prometheus/rules/trading.rules.yml). */
export const MARGIN_RATIO_WARNING = 0.8;
/** TradingMarginRatioCritical: `trading_account_margin_ratio > 0.9`. */
export const MARGIN_RATIO_CRITICAL = 0.9;
/** TradingPositionNearLiquidation: `trading_position_liquidation_distance_ratio < 0.05`. */
export const LIQUIDATION_DISTANCE_CRITICAL = 0.05;

export type RiskState = "ok" | "warning" | "critical";

/** As the margin alerts judge a ratio: strictly above each threshold; +Inf (no margin left) is critical. */
export function marginState(ratio: number): RiskState {
  if (ratio > MARGIN_RATIO_CRITICAL) return "critical";
  if (ratio > MARGIN_RATIO_WARNING) return "warning";
  return "ok";
}

/** As TradingPositionNearLiquidation judges a distance: strictly below the threshold is critical. */
export function liquidationState(distance: number): RiskState {
  return distance < LIQUIDATION_DISTANCE_CRITICAL ? "critical" : "ok";
}
