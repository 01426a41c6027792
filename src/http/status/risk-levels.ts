// How the status page grades a figure: by the account's own alert thresholds, as the shipped alerts compare.

import { THRESHOLDS, type ThresholdKey, type Thresholds } from "../../config/threshold-table.js";

export type RiskState = "ok" | "warning" | "critical";
type Tier = "margin_ratio" | "margin_usage" | "liquidation_distance";

/** Strictly past each threshold on the side its alert fires: +Inf (no margin left) and a negative distance are critical; no resolve band. */
function grade(tier: Tier, value: number, t: Thresholds): RiskState {
  const past = (key: ThresholdKey) => (THRESHOLDS[key].fires === "above" ? value > t[key] : value < t[key]);
  return past(`${tier}_critical`) ? "critical" : past(`${tier}_warning`) ? "warning" : "ok";
}

export const marginState = (ratio: number, t: Thresholds): RiskState => grade("margin_ratio", ratio, t);
export const marginUsageState = (usage: number, t: Thresholds): RiskState => grade("margin_usage", usage, t);
export const liquidationState = (distance: number, t: Thresholds): RiskState => grade("liquidation_distance", distance, t);

/** The alert each graded state stands for, whose runbook its badge links to. */
const alertsOf = (tier: Tier) => ({ warning: THRESHOLDS[`${tier}_warning`].alert, critical: THRESHOLDS[`${tier}_critical`].alert });
export const MARGIN_ALERTS = alertsOf("margin_ratio");
export const MARGIN_USAGE_ALERTS = alertsOf("margin_usage");
export const LIQUIDATION_ALERTS = alertsOf("liquidation_distance");
