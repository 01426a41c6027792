// The list of collectors: a new metric family is one edit in one of these, a new collector one line here.

import { account } from "./account.js";
import { activeOrders } from "./active-orders.js";
import type { Collector } from "../metrics/collector.js";
import { markets } from "./markets.js";
import { orderHistory } from "./order-history.js";
import { orderOutcomes } from "./order-outcomes.js";
import { positionMargin } from "./position-margin.js";
import { positions } from "./positions.js";
import { scrapeHealth } from "./scrape-health.js";
import { thresholds } from "./thresholds.js";

/** In the order of the answer. */
export const COLLECTORS: readonly Collector[] = [
  scrapeHealth,
  thresholds,
  account,
  positions,
  positionMargin,
  activeOrders,
  orderHistory,
  orderOutcomes,
  markets,
];
