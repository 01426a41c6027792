// The alert thresholds, units and value mappings the dashboards colour by: the defaults of the one table (src/config/threshold-table.ts).
import { type ValueMapping, MappingType, ThresholdsConfigBuilder, ThresholdsMode } from "@grafana/grafana-foundation-sdk/dashboard";
import { DEFAULT_THRESHOLDS, THRESHOLDS, type ThresholdKey } from "../../src/config/threshold-table.js";

/** TradingMarginRatioHigh, TradingMarginRatioCritical, the two margin-in-use tiers, the two liquidation tiers, TradingPositionNearSizeLimit, TradingActiveOrderStuck: the defaults. */
export const MARGIN_RATIO_WARNING = DEFAULT_THRESHOLDS.margin_ratio_warning;
export const MARGIN_RATIO_CRITICAL = DEFAULT_THRESHOLDS.margin_ratio_critical;
export const MARGIN_USAGE_WARNING = DEFAULT_THRESHOLDS.margin_usage_warning;
export const MARGIN_USAGE_CRITICAL = DEFAULT_THRESHOLDS.margin_usage_critical;
export const LIQUIDATION_DISTANCE_WARNING = DEFAULT_THRESHOLDS.liquidation_distance_warning;
export const LIQUIDATION_DISTANCE_CRITICAL = DEFAULT_THRESHOLDS.liquidation_distance_critical;
export const SIZE_LIMIT_WARNING = DEFAULT_THRESHOLDS.size_limit_warning;
export const ORDER_AGE_WARNING_SECONDS = DEFAULT_THRESHOLDS.active_order_age_warning_seconds;
/** TradingCollectionStale: served data older than 60 s (the exporter's health, not an account's threshold). */
export const DATA_AGE_WARNING_SECONDS = 60;

/** A ratio threshold in a panel's words: "80 %". */
export const pct = (ratio: number): string => `${Number((ratio * 100).toFixed(2))} %`;
/** A threshold in seconds in a panel's words: "1 h", "10 min", "90 s". */
export const span = (seconds: number): string => (seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);

/**
 * An account's threshold as a graph draws it, from trading_account_alert_threshold (or _seconds): the stricter of
 * two exporters, as the rules take it, and the table's default where none is exported.
 */
export function accountThreshold(key: ThresholdKey, selector: string): string {
  const spec = THRESHOLDS[key];
  const family = spec.unit === "seconds" ? "trading_account_alert_threshold_seconds" : "trading_account_alert_threshold";
  return `${spec.fires === "above" ? "min" : "max"}(${family}{${selector}, threshold="${key}"}) or vector(${spec.default})`;
}

/** Grafana units: the collateral is named in the title or a column (Grafana takes no unit from a label or variable). */
export const UNIT = {
  ratio: "percentunit",
  leverage: "x",
  money: "locale",
  price: "locale",
  size: "locale",
  count: "none",
  seconds: "s",
  perMinute: "opm",
  perSecond: "reqps",
  dateFromNow: "dateTimeFromNow",
} as const;

const GREEN = "green";
const ORANGE = "orange";
const RED = "red";
/** Its own colour for the states past the scale: no margin left, a halted market. */
const WIPEOUT = "dark-purple";

/** Green, then orange from `warning`, then red from `critical`: for values where higher is worse. */
export function rising(warning: number, critical?: number): ThresholdsConfigBuilder {
  const steps = [
    { value: null, color: GREEN },
    { value: warning, color: ORANGE },
  ];
  if (critical !== undefined) steps.push({ value: critical, color: RED });
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps);
}

/** Red below `critical`, orange below `warning`, green above: for values where lower is worse. */
export function falling(critical: number, warning: number): ThresholdsConfigBuilder {
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([
    { value: null, color: RED },
    { value: critical, color: ORANGE },
    { value: warning, color: GREEN },
  ]);
}

export const marginRatioThresholds = (): ThresholdsConfigBuilder => rising(MARGIN_RATIO_WARNING, MARGIN_RATIO_CRITICAL);
export const marginUsageThresholds = (): ThresholdsConfigBuilder => rising(MARGIN_USAGE_WARNING, MARGIN_USAGE_CRITICAL);
export const liquidationThresholds = (): ThresholdsConfigBuilder => falling(LIQUIDATION_DISTANCE_CRITICAL, LIQUIDATION_DISTANCE_WARNING);

/** The margin ratio is +Inf when total margin is zero or negative with positions open (JSON has no Infinity: from 1e308 up). */
export const marginRatioMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: 1e308, to: null, result: { text: "NO MARGIN LEFT", color: WIPEOUT, index: 0 } } },
  { type: MappingType.RangeToText, options: { from: 1, to: 1e308, result: { text: "AT LIQUIDATION", color: RED, index: 1 } } },
];

/** Margin in use past 100 %: available margin is negative, nothing is left to use. */
export const marginUsageMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: 1, to: null, result: { text: "NONE LEFT", color: WIPEOUT, index: 0 } } },
];

/** A liquidation price at or beyond the average execution price: the distance is 0 or negative. */
export const liquidationMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: null, to: 0, result: { text: "BEYOND ENTRY", color: WIPEOUT, index: 0 } } },
];

/** A market's status label: TRADABLE green, any other (CLOSE_ONLY, halted, ...) its own colour. */
export const statusMappings = (): ValueMapping[] => [
  { type: MappingType.ValueToText, options: { TRADABLE: { color: GREEN, index: 0 } } },
  { type: MappingType.RegexToText, options: { pattern: "^(?!TRADABLE$).+$", result: { color: WIPEOUT, index: 1 } } },
];

/** A 1/0 tradable flag (see the market status queries). */
export const tradableMappings = (): ValueMapping[] => [
  { type: MappingType.ValueToText, options: { "1": { text: "TRADABLE", color: GREEN, index: 0 }, "0": { text: "NOT TRADABLE", color: WIPEOUT, index: 1 } } },
];

/** A 1/0 success gauge (trading_up, trading_scrape_success, the last reload). */
export const okMappings = (): ValueMapping[] => [
  { type: MappingType.ValueToText, options: { "1": { text: "OK", color: GREEN, index: 0 }, "0": { text: "FAILED", color: RED, index: 1 } } },
];

/** A 1/0 "cut short" flag. */
export const truncatedMappings = (): ValueMapping[] => [
  { type: MappingType.ValueToText, options: { "0": { text: "complete", color: GREEN, index: 0 }, "1": { text: "CUT SHORT", color: ORANGE, index: 1 } } },
];
