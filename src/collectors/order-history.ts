// The order history fetched this scrape: orders by status, rejections by code, latest creation time.

import { addSample, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";
import { Aggregate, Groups } from "./group.js";

function collect(scrape: ScrapeResult): Family[] {
  const g = (name: string, help: string, labels: string[]) => gauge(metricName("order_history", name), help, labels);
  const orders = g("orders", "Number of orders in the history fetched this scrape (a count).", ["account", "market_id", "side", "direction", "type", "status"]);
  const rejections = g("rejections", "Number of orders in the fetched history that carry a rejection reason, by its code (a count).", [
    "account",
    "market_id",
    "code",
  ]);
  const lastCreated = g("last_created_timestamp_seconds", "Creation time of the newest order in the fetched history, in seconds since the epoch.", [
    "account",
    "market_id",
  ]);
  const fetched = g("fetched_orders", "Number of history orders fetched this scrape, after paging and removing repeats (a count).", ["account"]);
  const truncated = g(
    "truncated",
    "1 when the history read was cut by the order cap, the request bound or a paging anomaly, so orders may be missing; else 0.",
    ["account"],
  );
  for (const a of scrape.accounts) {
    if (a.history === undefined) continue;
    const byStatus = new Groups(() => ({ n: 0 }));
    const byCode = new Groups(() => ({ n: 0 }));
    const byMarket = new Groups(() => new Aggregate());
    for (const o of a.history.orders) {
      const group = byStatus.get([a.account, o.marketId, o.side, o.direction, o.type, o.status]);
      if (group) group.n++;
      const rejected = byCode.get([a.account, o.marketId, o.rejectionCode]);
      if (rejected) rejected.n++;
      // An order without a time is left out of the newest time, never hides the market's.
      if (o.createdAt !== undefined) byMarket.get([a.account, o.marketId])?.add(o.createdAt);
    }
    for (const { labels, value } of byStatus.entries()) addSample(orders, labels, value.n);
    for (const { labels, value } of byCode.entries()) addSample(rejections, labels, value.n);
    for (const { labels, value } of byMarket.entries()) addSample(lastCreated, labels, value.max);
    addSample(fetched, [a.account], a.history.orders.length);
    addSample(truncated, [a.account], a.history.truncated ? 1 : 0);
  }
  return distinctSeries([orders, rejections, lastCreated, fetched, truncated]);
}

export const orderHistory: Collector = { collect };
