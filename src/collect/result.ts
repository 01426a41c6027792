// What one scrape read: per account and for the markets, the outcomes and the validated data.

import type { Thresholds } from "../config/thresholds.js";
import type { AccountInfo, ActiveOrders, Market, OrderHistory } from "../venue/snapshot.js";
import type { OrderCounts } from "./order-outcomes.js";
import type { Endpoint } from "../venue/endpoints.js";
import type { FailureReason } from "../venue/errors.js";

/** How one call of an endpoint went. */
export interface EndpointOutcome {
  endpoint: Endpoint;
  /** Undefined for the public market list, which belongs to no account. */
  account: string | undefined;
  ok: boolean;
  durationSeconds: number;
  reason: FailureReason | undefined;
  /** One line, safe to log: it names paths and statuses, never credentials. */
  message: string | undefined;
  /** Seconds the venue asked us to wait before calling this endpoint again (Retry-After on 429/418). */
  retryAfterSeconds?: number | undefined;
  /** The HTTP status of a failure that was one. */
  httpStatus?: number | undefined;
}

export interface AccountResult {
  account: string;
  /** When this collection of the account started (epoch ms); undefined for a scrape that gave up waiting for one. */
  startedAt: number | undefined;
  outcomes: EndpointOutcome[];
  /** One per collateral id that answered; a collateral that failed is absent. */
  accountInfos: AccountInfo[];
  activeOrders: ActiveOrders | undefined;
  history: OrderHistory | undefined;
  /** The account's order outcome counts as of this collection; absent until both order lists were read once. */
  orderCounts?: OrderCounts | undefined;
}

export interface MarketsResult {
  outcome: EndpointOutcome;
  markets: Market[] | undefined;
  /** When the list was read (epoch ms; it is cached), and how long it is kept. */
  readAt: number;
  maxAgeSeconds: number;
}

export interface ScrapeResult {
  /** When this scrape's collection was asked for (epoch ms). */
  collectedAt: number;
  accounts: AccountResult[];
  /** The venue's market list, read (or taken from its cache) by every collection: per-position series need it. */
  markets: MarketsResult | undefined;
  /**
   * Whether the answer carries the market list's own families (its series, its endpoint's health, its age).
   * The list is public: it belongs to the venue's target (`/probe?target=venue/markets`) and to `/metrics`
   * of the shard that owns it, never to an account's target, so it is stored once however many accounts.
   */
  marketFamilies: boolean;
  /** The alert thresholds of each configured account by name, exported with its series whatever its collection read. */
  thresholds?: ReadonlyMap<string, Thresholds>;
}
