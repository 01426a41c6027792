// Market reference data: an info series, the status, and one gauge per trading setting.

import type { ScrapeResult } from "../scrape/result.js";
import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import type { MarketSetting } from "../venue/snapshot.js";
import type { Collector } from "../metrics/collector.js";

/** The venue's setting, our metric suffix, and HELP. The venue's "fractions" are exported as ratios. */
const SETTINGS: Array<[MarketSetting, string, string]> = [
  ["tickSize", "tick_size", "Price tick size of the market, in collateral units per traded unit."],
  ["tickPrecision", "tick_precision", "Number of decimals of the price tick (a count)."],
  ["stepSize", "step_size", "Order size step of the market, in units of the traded asset."],
  ["stepPrecision", "step_precision", "Number of decimals of the size step (a count)."],
  ["minOrderSize", "min_order_size", "Smallest order size, in units of the traded asset."],
  ["minLeverage", "min_leverage", "Smallest leverage allowed, as a multiple (ratio)."],
  ["maxLeverage", "max_leverage", "Largest leverage allowed, as a multiple (ratio)."],
  ["currentlyAllowedLeverage", "currently_allowed_leverage", "Leverage allowed right now, as a multiple (ratio)."],
  ["maintenanceMarginFraction", "maintenance_margin_ratio", "Maintenance margin fraction, as a 0-1 ratio."],
  ["initialMarginFraction", "initial_margin_ratio", "Initial margin fraction, as a 0-1 ratio."],
  ["incrementalInitialMarginFraction", "incremental_initial_margin_ratio", "Incremental initial margin fraction, as a 0-1 ratio."],
  ["incrementalPositionSize", "incremental_position_size", "Incremental position size, in units of the traded asset."],
  ["baselinePositionSize", "baseline_position_size", "Baseline position size, in units of the traded asset."],
  ["maxPositionSize", "max_position_size", "Largest position size, in units of the traded asset."],
];

function collect(scrape: ScrapeResult): Family[] {
  const cached = `the public market list is cached up to ${scrape.markets?.maxAgeSeconds ?? 0} s`;
  const g = (name: string, help: string, labels: string[]) => gauge(metricName("market", name), `${help} (${cached}).`, labels);
  const info = g("info", "Market reference data as labels; the value is always 1", ["market_id", "name", "asset_id", "collateral_asset_id"]);
  const status = g("status", "Status of the market as a label (e.g. TRADABLE); the value is always 1", ["market_id", "status"]);
  const settings = SETTINGS.map(([, suffix, help]) => g(suffix, help.slice(0, -1), ["market_id"]));
  for (const m of (scrape.marketFamilies ? scrape.markets?.markets : undefined) ?? []) {
    addSample(info, [m.id, m.name, m.assetId, m.collateralAssetId], 1);
    addSample(status, [m.id, m.status], 1);
    SETTINGS.forEach(([key], i) => addSample(settings[i]!, [m.id], m.settings[key]));
  }
  return [info, status, ...settings];
}

// The market list is read once per venue.markets_cache_seconds: its families, most of /metrics, are rendered once per read.
export const markets: Collector = { collect, givesWay: 4, madeFrom: (scrape) => (scrape.marketFamilies ? scrape.markets : undefined) };
