// Active orders by market, side, direction, type and status: counts, quantities, notional, flags, age.

import { addSample, distinctSeries, gauge, metricName, type Family } from "../metrics/family.js";
import type { Order } from "../venue/snapshot.js";
import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "../metrics/collector.js";
import { Aggregate, Groups } from "./group.js";

const GROUP_LABELS = ["account", "market_id", "side", "direction", "type", "status"] as const;

const FLAGS = [
  ["expiration", "isPendingExpiration"],
  ["cancellation", "isPendingCancellation"],
  ["rejection", "isPendingRejection"],
] as const;

class OrderGroup {
  readonly quantity = new Aggregate();
  readonly filled = new Aggregate();
  readonly locked = new Aggregate();
  readonly notional = new Aggregate();
  count = 0;

  add(o: Order): void {
    this.count++;
    const exact = o.exact;
    this.quantity.add(o.quantity, exact?.quantity);
    this.filled.add(o.quantityFilled, exact?.quantityFilled);
    this.locked.add(o.quantityLocked, exact?.quantityLocked);
    this.notional.addProduct(o.price, o.quantity, exact?.price, exact?.quantity);
  }
}

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
    if (a.activeOrders === undefined) continue;
    const groups = new Groups(() => new OrderGroup());
    const byMarket = new Groups(() => ({ created: new Aggregate(), flags: FLAGS.map(() => new Aggregate()) }));
    for (const o of a.activeOrders.orders) {
      groups.get([a.account, o.marketId, o.side, o.direction, o.type, o.status])?.add(o);
      const market = byMarket.get([a.account, o.marketId]);
      if (market === undefined) continue;
      // An order without a time is left out of the oldest time, never hides the market's.
      if (o.createdAt !== undefined) market.created.add(o.createdAt);
      FLAGS.forEach(([, field], i) => market.flags[i]!.add(o[field] === undefined ? undefined : Number(o[field])));
    }
    for (const { labels, value: g } of groups.entries()) {
      addSample(count, labels, g.count);
      addSample(quantity, labels, g.quantity.sum);
      addSample(filled, labels, g.filled.sum);
      addSample(locked, labels, g.locked.sum);
      addSample(notional, labels, g.notional.sum);
    }
    for (const { labels, value: market } of byMarket.entries()) {
      FLAGS.forEach(([flag], i) => addSample(pending, [...labels, flag], market.flags[i]!.sum));
      addSample(oldest, labels, market.created.min);
    }
    addSample(truncated, [a.account], a.activeOrders.orders.length >= a.activeOrders.limit ? 1 : 0);
  }
  return distinctSeries([count, quantity, filled, locked, notional, pending, oldest, truncated]);
}

export const activeOrders: Collector = { collect };
