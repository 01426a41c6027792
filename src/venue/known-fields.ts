// The field names each endpoint's reader may report as invalid, taken from the readers' own lists.

import type { Endpoint } from "./endpoints.js";
import { ACCOUNT_INFO_FIELDS } from "./read-account.js";
import { MARKET_FIELDS } from "./read-markets.js";
import { HISTORY_ORDER_FIELDS, ORDER_FIELDS } from "./read-orders.js";

/** Per endpoint, every `field` label trading_exporter_invalid_fields_total can carry (a bounded set). */
export const KNOWN_INVALID_FIELDS: Readonly<Record<Endpoint, readonly string[]>> = {
  account_info: ACCOUNT_INFO_FIELDS,
  orders_active: ORDER_FIELDS,
  orders_history: HISTORY_ORDER_FIELDS,
  markets: MARKET_FIELDS,
};
