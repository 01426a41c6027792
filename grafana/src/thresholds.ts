// The alert thresholds, units and value mappings the dashboards colour by, each equal to its alert's literal (test/dashboards.test.ts holds them).
import { type ValueMapping, MappingType, ThresholdsConfigBuilder, ThresholdsMode } from "@grafana/grafana-foundation-sdk/dashboard";
import { LIQUIDATION_DISTANCE_CRITICAL, MARGIN_RATIO_CRITICAL, MARGIN_RATIO_WARNING } from "../../src/http/risk-levels.js";

export { LIQUIDATION_DISTANCE_CRITICAL, MARGIN_RATIO_CRITICAL, MARGIN_RATIO_WARNING };
/** TradingPositionApproachingLiquidation: distance ratio < 0.10 (through trading:position_liquidation_distance_ratio:warning). */
export const LIQUIDATION_DISTANCE_WARNING = 0.1;
/** TradingPositionNearSizeLimit: size / max size > 0.9. */
export const SIZE_LIMIT_WARNING = 0.9;
/** TradingCollectionStale: served data older than 60 s. */
export const DATA_AGE_WARNING_SECONDS = 60;
/** TradingActiveOrderStuck: oldest active order older than 3600 s. */
export const ORDER_AGE_WARNING_SECONDS = 3600;

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
export const liquidationThresholds = (): ThresholdsConfigBuilder => falling(LIQUIDATION_DISTANCE_CRITICAL, LIQUIDATION_DISTANCE_WARNING);

/** The margin ratio is +Inf when total margin is zero or negative with positions open (JSON has no Infinity: from 1e308 up). */
export const marginRatioMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: 1e308, to: null, result: { text: "NO MARGIN LEFT", color: WIPEOUT, index: 0 } } },
  { type: MappingType.RangeToText, options: { from: 1, to: 1e308, result: { text: "AT LIQUIDATION", color: RED, index: 1 } } },
];

/** Utilisation past 100 %: available margin is negative, nothing is left to use. */
export const utilisationMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: 1, to: null, result: { text: "NONE LEFT", color: WIPEOUT, index: 0 } } },
];

/** A liquidation price at or beyond the average execution price. */
export const liquidationMappings = (): ValueMapping[] => [
  { type: MappingType.RangeToText, options: { from: null, to: 0, result: { text: "AT LIQUIDATION", color: WIPEOUT, index: 0 } } },
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
