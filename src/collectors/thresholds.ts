// Each account's alert thresholds as series, the limit beside the value, so the shipped rules join on them.

import { THRESHOLD_KEYS, THRESHOLDS } from "../config/threshold-table.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";
import { addSample, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";

const LABELS = ["account", "threshold"] as const;

function collect(scrape: ScrapeResult): Family[] {
  const by = "by threshold key (the config file's thresholds: map over the defaults)";
  const ratios = gauge(metricName("account", "alert_threshold"), `Alert threshold of the account as a 0-1 ratio, ${by}.`, LABELS);
  const seconds = gauge(metricName("account", "alert_threshold_seconds"), `Alert threshold of the account in seconds, ${by}.`, LABELS);
  for (const a of scrape.accounts) {
    const own = scrape.thresholds?.get(a.account);
    if (own === undefined) continue;
    for (const key of THRESHOLD_KEYS) addSample(THRESHOLDS[key].unit === "ratio" ? ratios : seconds, [a.account, key], own[key]);
  }
  return distinctSeries([ratios, seconds]);
}

/** Never cut by scrape.max_series: the rules would fall back to the defaults for an account whose thresholds were dropped. */
export const thresholds: Collector = { collect, givesWay: "never" };
