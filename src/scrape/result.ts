// What one scrape read: per account and for the markets, the outcomes and the validated data.

import type { Thresholds } from "../config/threshold-table.js";
import type { AccountInfo, Market, OrderHistory } from "../venue/snapshot.js";
import type { Endpoint, RequestTrace } from "../venue/endpoints.js";
import type { FailureReason } from "../venue/errors.js";

/** What a collection asked of the venue and who started it: the debug report of every probe served the collection. */
export type CollectionLog = { startedBy: string; requests: RequestTrace[]; invalid: Map<string, number> };

export interface EndpointOutcome {
  endpoint: Endpoint;
  /** Undefined for the public market list, which belongs to no account. */
  account: string | undefined;
  ok: boolean;
  durationSeconds: number;
  reason: FailureReason | undefined;
  /** One line, safe to log: it names paths and statuses, never credentials. */
  message: string | undefined;
  retryAfterSeconds?: number | undefined;
  httpStatus?: number | undefined;
}

export interface AccountResult {
  account: string;
  /** Epoch ms; undefined for a scrape that gave up waiting for a collection. */
  startedAt: number | undefined;
  outcomes: EndpointOutcome[];
  /** One per collateral id that answered; a collateral that failed is absent. */
  accountInfos: AccountInfo[];
  /** The order lists as their families need them: the orders themselves are counted (orderCounts) and not kept. */
  activeOrders: ActiveSummary | undefined;
  history: HistorySummary | undefined;
  /** Absent until both order lists were read once. */
  orderCounts?: OrderCounts | undefined;
  /** Absent for a scrape that gave up waiting. */
  log?: CollectionLog;
}

export interface MarketsResult {
  outcome: EndpointOutcome;
  markets: Market[] | undefined;
  readAt: number;
  maxAgeSeconds: number;
  log?: CollectionLog;
}

export interface ScrapeResult {
  collectedAt: number;
  accounts: AccountResult[];
  markets: MarketsResult | undefined;
  /** The public list's own families belong only to the venue target and the owning shard's /metrics, never to an account's. */
  marketFamilies: boolean;
  /** The alert thresholds of each configured account by name, exported with its series whatever its collection read. */
  thresholds?: ReadonlyMap<string, Thresholds>;
}

export interface OrderCount {
  readonly marketId: string;
  /** The status (trading_orders_total) or the rejection code (trading_order_rejections_total). */
  readonly key: string;
  readonly count: number;
}

export type OrderCounts = { readonly orders: readonly OrderCount[]; readonly rejections: readonly OrderCount[]; readonly tracked: number };

/** Rows of `width` label values (market_id first; no account) and `stride` numbers each, NaN where not given. */
export type Rows = { width: number; stride: number; labels: string[]; values: number[] };

export interface ActiveSummary {
  /** Orders read, and the limit asked for: an answer this long may have been cut. */
  count: number;
  limit: number;
  /** By market_id, side, direction, type and status: GROUP_COLUMNS. */
  groups: Rows;
  /** By market_id: MARKET_COLUMNS. */
  markets: Rows;
}

export interface HistorySummary extends Omit<OrderHistory, "orders"> {
  /** Orders read, after paging and removing repeats. */
  count: number;
  /** Orders by market_id, side, direction, type and status; rejections by market_id and code; newest creation time by market_id. */
  statuses: Rows;
  rejections: Rows;
  newest: Rows;
}
