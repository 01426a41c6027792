// The order history fetched this scrape: orders by status, rejections by code, latest creation time.

import { addSample, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";
import { rowCount, rowLabels, rowValue } from "../scrape/order-summary.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";

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
    const history = a.history;
    if (history === undefined) continue;
    for (const [family, rows] of [
      [orders, history.statuses],
      [rejections, history.rejections],
      [lastCreated, history.newest],
    ] as const) {
      for (let r = 0; r < rowCount(rows); r++) addSample(family, rowLabels(rows, r, a.account), rowValue(rows, r, 0));
    }
    addSample(fetched, [a.account], history.count);
    addSample(truncated, [a.account], history.truncated ? 1 : 0);
  }
  return distinctSeries([orders, rejections, lastCreated, fetched, truncated]);
}

export const orderHistory: Collector = { collect, givesWay: 2 };
