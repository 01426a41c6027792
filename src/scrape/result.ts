// What one scrape read: per account and for the markets, the outcomes and the validated data.

import type { Thresholds } from "../config/threshold-table.js";
import type { AccountInfo, Market } from "../venue/snapshot.js";
import type { ActiveSummary, HistorySummary } from "./order-summary.js";
import type { OrderCounts } from "./order-tally.js";
import type { Endpoint } from "../venue/endpoints.js";
import type { FailureReason } from "../venue/errors.js";
import type { RequestTrace } from "../venue/client.js";

/** What a collection asked of the venue and who started it: the debug report of every probe served the collection. */
export interface CollectionLog {
  startedBy: string;
  requests: RequestTrace[];
  invalid: Map<string, number>;
}

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
