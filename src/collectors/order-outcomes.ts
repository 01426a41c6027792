// Order outcomes as counters (the counting is scrape/order-tally.ts's, once per collection): orders by status, rejections by code, ids remembered.

import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";
import { addSample, counter, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";

function collect(scrape: ScrapeResult): Family[] {
  const since = (what: string) => `since the exporter started, by market and ${what}; the orders of an account's first collection count 0 (a count).`;
  const orders = counter(metricName("orders_total"), `Orders seen with a status for the first time ${since("status")}`, ["account", "market_id", "status"]);
  const rejections = counter(metricName("order_rejections_total"), `Orders first seen with a rejection code ${since("code")}`, [
    "account",
    "market_id",
    "code",
  ]);
  const tracked = gauge(
    metricName("order_ids_tracked"),
    "Order ids the exporter remembers to count each order once, bounded by what the order reads cover (a count).",
    ["account"],
  );
  for (const a of scrape.accounts) {
    const counts = a.orderCounts;
    if (counts === undefined) continue;
    for (const c of counts.orders) addSample(orders, [a.account, c.marketId, c.key], c.count);
    for (const c of counts.rejections) addSample(rejections, [a.account, c.marketId, c.key], c.count);
    addSample(tracked, [a.account], counts.tracked);
  }
  return distinctSeries([orders, rejections, tracked]);
}

export const orderOutcomes: Collector = { collect, givesWay: 1 };
