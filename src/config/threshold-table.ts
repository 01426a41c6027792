// The alert thresholds a desk sets per account: the one table of their defaults, and how a config's maps merge over it.

type Spec = { default: number; unit: "ratio" | "seconds"; fires: "above" | "below"; alert: string; series: string; help: string; measure?: string };

// unit: a ratio in (0, 1] is exported in trading_account_alert_threshold, seconds in ..._seconds. fires: the side of it that alerts (of two values the stricter
// is the lower for above, the higher for below). alert: the shipped rule on `series` (or on `measure` of it).
export const THRESHOLDS = {
  margin_ratio_warning: {
    default: 0.8,
    unit: "ratio",
    fires: "above",
    alert: "TradingMarginRatioHigh",
    series: "trading_account_margin_ratio",
    help: "Margin ratio above which the account's collateral is a warning.",
  },
  margin_ratio_critical: {
    default: 0.9,
    unit: "ratio",
    fires: "above",
    alert: "TradingMarginRatioCritical",
    series: "trading_account_margin_ratio",
    help: "Margin ratio above which it is critical; 1 is liquidation.",
  },
  margin_usage_warning: {
    default: 0.8,
    unit: "ratio",
    fires: "above",
    alert: "TradingMarginUsageHigh",
    series: "trading_account_margin_usage_ratio",
    help: "Share of the total margin in use above which a collateral with no margin ratio (summary shape) is a warning.",
  },
  margin_usage_critical: {
    default: 0.95,
    unit: "ratio",
    fires: "above",
    alert: "TradingMarginUsageCritical",
    series: "trading_account_margin_usage_ratio",
    help: "Share of the total margin in use above which it is critical; at 1 no margin is left for new orders.",
  },
  margin_ratio_horizon_seconds: {
    default: 3600,
    unit: "seconds",
    fires: "below",
    alert: "TradingMarginRatioRising",
    series: "trading_account_margin_ratio",
    measure: "the seconds until 1 at the trend",
    help: "Warning when the margin ratio's trend over the last 30 minutes reaches 1, liquidation, within this many seconds.",
  },
  margin_usage_horizon_seconds: {
    default: 3600,
    unit: "seconds",
    fires: "below",
    alert: "TradingMarginUsageRising",
    series: "trading_account_margin_usage_ratio",
    measure: "the seconds until 1 at the trend",
    help: "Warning when the trend of margin in use (no margin ratio) reaches 1, no margin left for new orders, within this many seconds.",
  },
  liquidation_distance_warning: {
    default: 0.1,
    unit: "ratio",
    fires: "below",
    alert: "TradingPositionApproachingLiquidation",
    series: "trading_position_liquidation_distance_ratio",
    help: "Liquidation distance from the average execution price below which a position is a warning.",
  },
  liquidation_distance_critical: {
    default: 0.05,
    unit: "ratio",
    fires: "below",
    alert: "TradingPositionNearLiquidation",
    series: "trading_position_liquidation_distance_ratio",
    help: "Liquidation distance below which it is critical; a negative distance always is.",
  },
  size_limit_warning: {
    default: 0.9,
    unit: "ratio",
    fires: "above",
    alert: "TradingPositionNearSizeLimit",
    series: "trading_position_size_limit_ratio",
    help: "Share of the market's largest position size above which a position is a warning.",
  },
  active_order_age_warning_seconds: {
    default: 3600,
    unit: "seconds",
    fires: "above",
    alert: "TradingActiveOrderStuck",
    series: "trading_active_orders_oldest_created_timestamp_seconds",
    help: "Age of the oldest active order, in seconds, above which it is a warning.",
  },
} as const satisfies Record<string, Spec>;

export type ThresholdKey = keyof typeof THRESHOLDS;
export type Thresholds = Readonly<Record<ThresholdKey, number>>;

export const THRESHOLD_KEYS = Object.keys(THRESHOLDS) as ThresholdKey[];

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze(Object.fromEntries(THRESHOLD_KEYS.map((k) => [k, THRESHOLDS[k].default])) as Thresholds);

/** Each warning and the critical it comes before, named alike. */
const TIERS = THRESHOLD_KEYS.filter((k) => k.endsWith("_critical")).map((c) => [c.replace(/_critical$/, "_warning") as ThresholdKey, c] as const);

/** Longest order age threshold: a year. */
const MAX_SECONDS = 31_536_000;

function valueProblem(key: ThresholdKey, value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number";
  if (THRESHOLDS[key].unit === "ratio") return value > 0 && value <= 1 ? undefined : "must be a ratio above 0 and at most 1 (0.8 is 80 %)";
  return value > 0 && value <= MAX_SECONDS ? undefined : `must be seconds above 0 and at most ${MAX_SECONDS}`;
}

/** `given` (its keys already known) merged over `base`, then checked as merged: each value, then each warning before its critical. */
export function mergeThresholds(base: Thresholds, given: Readonly<Record<string, unknown>>, where: string, problem: (key: ThresholdKey, text: string) => void) {
  const merged: Record<string, number> = { ...base };
  const bad = THRESHOLD_KEYS.filter((key) => key in given && valueProblem(key, given[key]) !== undefined);
  for (const key of THRESHOLD_KEYS) {
    if (bad.includes(key)) problem(key, valueProblem(key, given[key])!);
    else if (key in given) merged[key] = given[key] as number;
  }
  for (const [warning, critical] of TIERS) {
    const [w, c] = [merged[warning]!, merged[critical]!];
    const above = THRESHOLDS[critical].fires === "above";
    if (bad.includes(warning) || bad.includes(critical) || (above ? w < c : w > c)) continue;
    const [before, after] = above ? ["below", "above"] : ["above", "below"];
    if (critical in given && !(warning in given))
      problem(critical, `${c} is not ${after} the ${warning} it inherits (${w}): set ${where}.${warning} too, ${before} ${c}`);
    else if (warning in given && !(critical in given))
      problem(warning, `${w} is not ${before} the ${critical} it inherits (${c}): set ${where}.${critical} too, ${after} ${w}`);
    else problem(warning, `${w} must be ${before} ${where}.${critical} (${c}): a warning comes before its critical`);
  }
  return merged as Thresholds;
}
