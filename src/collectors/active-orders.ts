// Active orders by market, side, direction, type and status: counts, quantities, notional, flags, age.

import { addSample, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";
import { GROUP_COLUMNS, MARKET_COLUMNS, rowCount, rowLabels, rowValue } from "../scrape/order-summary.js";
import { ORDER_FLAGS } from "../venue/snapshot.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";

const GROUP_LABELS = ["account", "market_id", "side", "direction", "type", "status"] as const;

const flagLabel = (flag: (typeof ORDER_FLAGS)[number]): string => flag.slice("isPending".length).toLowerCase();

function collect(scrape: ScrapeResult): Family[] {
  const m = (name: string, help: string, labels: readonly string[]) => gauge(metricName("active_orders", ...(name ? [name] : [])), help, labels);
  const count = m("", "Number of active orders (a count).", GROUP_LABELS);
  const quantity = m("quantity", "Summed quantity of the active orders, in units of the traded asset.", GROUP_LABELS);
  const filled = m("quantity_filled", "Summed filled quantity of the active orders, in units of the traded asset.", GROUP_LABELS);
  const locked = m("quantity_locked", "Summed locked quantity of the active orders, in units of the traded asset.", GROUP_LABELS);
  const notional = m("notional", "Summed price times quantity of the active orders, in units of the collateral asset.", GROUP_LABELS);
  const pending = m("pending", "Number of active orders with a pending expiration, cancellation or rejection flag set (a count).", [
    "account",
    "market_id",
    "flag",
  ]);
  const oldest = m("oldest_created_timestamp_seconds", "Creation time of the oldest active order, in seconds since the epoch.", ["account", "market_id"]);
  const truncated = m("truncated", "1 when the active-order list filled the requested limit, so orders beyond it may be missing; else 0.", ["account"]);

  for (const a of scrape.accounts) {
    const active = a.activeOrders;
    if (active === undefined) continue;
    const sums = { count, quantity, filled, locked, notional };
    for (let r = 0; r < rowCount(active.groups); r++) {
      const labels = rowLabels(active.groups, r, a.account);
      GROUP_COLUMNS.forEach((column, k) => addSample(sums[column], labels, rowValue(active.groups, r, k)));
    }
    for (let r = 0; r < rowCount(active.markets); r++) {
      const labels = rowLabels(active.markets, r, a.account);
      addSample(oldest, labels, rowValue(active.markets, r, MARKET_COLUMNS.indexOf("oldest")));
      for (const flag of ORDER_FLAGS) addSample(pending, [...labels, flagLabel(flag)], rowValue(active.markets, r, MARKET_COLUMNS.indexOf(flag)));
    }
    addSample(truncated, [a.account], active.count >= active.limit ? 1 : 0);
  }
  return distinctSeries([count, quantity, filled, locked, notional, pending, oldest, truncated]);
}

export const activeOrders: Collector = { collect, givesWay: 3 };
