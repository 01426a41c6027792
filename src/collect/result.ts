// What one scrape read: per account and for the markets, the outcomes and the validated data.

import type { AccountInfo, ActiveOrders, Market, OrderHistory } from "../venue/snapshot.js";
import type { OrderCounts } from "./order-outcomes.js";
import type { EndpointOutcome } from "./outcome.js";

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
}
