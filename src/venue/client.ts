// The venue client: one GET per read (venue/request.ts), its body parsed once within bounds and read tolerantly into a typed snapshot.

import type { AccountConfig, VenueConfig } from "../config/types.js";
import type { Deadline } from "../util/deadline.js";
import { authenticator, type Authenticator } from "./auth.js";
import { PATHS, type Endpoint, type RequestTrace } from "./endpoints.js";
import type { FieldReporter, VenueFields } from "./fields.js";
import { getBody, type VenuePool } from "./request.js";
import type { RequestPace } from "./request-pace.js";
import { readAccountInfo } from "./read-account.js";
import { readMarkets } from "./read-markets.js";
import { type OrderList, readOrders } from "./read-orders.js";
import { bodyWalk, type ListWalk } from "./walk.js";
import { pageHistory, type RequestBudget } from "./history-pager.js";
import type { AccountInfo, ActiveOrders, Market, Order, OrderHistory } from "./snapshot.js";

export type CallContext = { deadline: Deadline; invalid: FieldReporter; trace?: (request: RequestTrace) => void };

export interface ClientHooks {
  pool: VenuePool;
  /** The field readers, through the process's redactor. */
  fields: VenueFields;
  /** The venue's request budget, when venue.max_requests_per_second sets one. */
  pace?: RequestPace | undefined;
  onAnswer(endpoint: Endpoint, code: string): void;
}

export class VenueClient {
  readonly #venue: VenueConfig;
  readonly #auth: Authenticator | undefined;
  readonly #headers: Record<string, string>;
  readonly #hooks: ClientHooks;

  /** `account` undefined makes a client for the public endpoint only, which never sends a credential. */
  constructor(venue: VenueConfig, account: AccountConfig | undefined, hooks: ClientHooks) {
    this.#venue = venue;
    this.#auth = account === undefined ? undefined : authenticator(account.auth);
    this.#headers = account?.headers ?? {};
    this.#hooks = hooks;
  }

  async accountInfo(collateralId: string, ctx: CallContext): Promise<AccountInfo> {
    return this.#read("account_info", { collateralId }, ctx, (walk, f) => readAccountInfo(walk, f, collateralId, ctx.invalid));
  }

  async activeOrders(ctx: CallContext): Promise<ActiveOrders> {
    const limit = this.#venue.activeOrdersLimit;
    const query = { [this.#venue.activeOrdersLimitParam]: String(limit) };
    return { orders: await this.#readOrders("orders_active", query, ctx, limit), limit };
  }

  /** At most ceil(max orders / page size) requests, retries included, however the venue treats offset and limit; `firstPages` asked at once. */
  async orderHistory(ctx: CallContext, firstPages = 1): Promise<OrderHistory> {
    const { historyMaxOrders: max, historyPageSize: pageSize } = this.#venue;
    const budget: RequestBudget = { left: Math.ceil(max / pageSize) };
    const page = (offset: number, limit: number): Promise<Order[]> =>
      this.#readOrders("orders_history", { offset: String(offset), limit: String(limit) }, ctx, limit, budget);
    return pageHistory(max, pageSize, budget, page, firstPages);
  }

  async markets(ctx: CallContext): Promise<Market[]> {
    return this.#read("markets", {}, ctx, (walk, f) => readMarkets(walk, f, ctx.invalid));
  }

  #readOrders(endpoint: OrderList, query: Record<string, string>, ctx: CallContext, limit: number, budget?: RequestBudget): Promise<Order[]> {
    return this.#read(endpoint, query, ctx, (walk, f) => readOrders(walk, f, endpoint, ctx.invalid), Math.max(this.#venue.maxItems, limit), budget);
  }

  async #read<T>(
    endpoint: Endpoint,
    query: Record<string, string>,
    ctx: CallContext,
    read: (walk: ListWalk, fields: VenueFields) => Promise<T>,
    maxItems = this.#venue.maxItems,
    budget?: RequestBudget,
  ): Promise<T> {
    const url = new URL(PATHS[endpoint], this.#venue.baseUrl);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers = new Headers({ accept: "application/json", ...this.#headers });
    if (endpoint !== "markets") this.#auth?.apply(headers, url);
    const body = await getBody({
      url,
      headers,
      signal: ctx.deadline.signal,
      remainingMs: () => ctx.deadline.remainingMs(),
      maxBodyBytes: this.#venue.maxBodyBytes,
      maxRetryAfterSeconds: this.#venue.maxRetryAfterSeconds,
      pool: this.#hooks.pool,
      ...(this.#hooks.pace === undefined ? {} : { pace: this.#hooks.pace }),
      ...(budget === undefined ? {} : { budget }),
      onAttempt: ({ code, reason, durationMs }) => {
        this.#hooks.onAnswer(endpoint, code);
        ctx.trace?.({ endpoint, target: url.pathname + url.search, headerNames: [...headers.keys()], result: reason ?? code, durationMs });
      },
    });
    return read(bodyWalk(body, url, { maxItems, signal: ctx.deadline.signal }), this.#hooks.fields);
  }
}
