// How the status page grades a figure: by the account's own alert thresholds, as the shipped alerts compare.

import { THRESHOLDS, type Thresholds } from "../../config/threshold-table.js";

export type RiskState = "ok" | "warning" | "critical";

/** As the margin alerts judge a ratio: strictly above each threshold; +Inf (no margin left) is critical. */
export function marginState(ratio: number, t: Thresholds): RiskState {
  if (ratio > t.margin_ratio_critical) return "critical";
  if (ratio > t.margin_ratio_warning) return "warning";
  return "ok";
}

/** Margin in use, as its alerts judge it: strictly above each threshold. */
export function marginUsageState(usage: number, t: Thresholds): RiskState {
  if (usage > t.margin_usage_critical) return "critical";
  if (usage > t.margin_usage_warning) return "warning";
  return "ok";
}

/** Strictly below each threshold, so a negative distance is always critical; unlike the alerts, no resolve band. */
export function liquidationState(distance: number, t: Thresholds): RiskState {
  if (distance < t.liquidation_distance_critical) return "critical";
  if (distance < t.liquidation_distance_warning) return "warning";
  return "ok";
}

/** The alert each graded state stands for, whose runbook its badge links to. */
export const MARGIN_ALERTS = { warning: THRESHOLDS.margin_ratio_warning.alert, critical: THRESHOLDS.margin_ratio_critical.alert } as const;
export const MARGIN_USAGE_ALERTS = { warning: THRESHOLDS.margin_usage_warning.alert, critical: THRESHOLDS.margin_usage_critical.alert } as const;
export const LIQUIDATION_ALERTS = {
  warning: THRESHOLDS.liquidation_distance_warning.alert,
  critical: THRESHOLDS.liquidation_distance_critical.alert,
} as const;
