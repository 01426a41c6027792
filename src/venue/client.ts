// The venue client: fetches one endpoint, with at most one retry, and validates what comes back.

import type { AccountConfig, VenueConfig } from "../config/types.js";
import type { Deadline } from "../util/deadline.js";
import { authenticator, type Authenticator } from "./auth.js";
import { PATHS, type Endpoint } from "./endpoints.js";
import { VenueError } from "./errors.js";
import { BodyCache, type BodySource } from "./body-cache.js";
import { getBody, type RawBody } from "./http.js";
import type { Precision } from "./fields.js";
import { readAccountInfo, type FieldReporter } from "./parse-account.js";
import { readMarkets } from "./parse-markets.js";
import { readOrders } from "./parse-orders.js";
import { bodyWalk, type ListWalk } from "./walk.js";
import { historyRequestBound, pageHistory, type RequestBudget } from "./history-pager.js";
import { shareIds } from "./shared-ids.js";
import type { AccountInfo, ActiveOrders, Market, Order, OrderHistory } from "./snapshot.js";
import type { Transport } from "./transport.js";

/** One request as a debug report shows it: no header values, no host credentials. */
export interface RequestTrace {
  endpoint: Endpoint;
  /** Path and query, e.g. /v1/private/orders/history?offset=0&limit=100. */
  target: string;
  /** Header names sent; their values are never recorded. */
  headerNames: string[];
  /** HTTP status, or the failure reason when none came back. */
  result: string;
  durationMs: number;
}

export interface CallContext {
  deadline: Deadline;
  /** Reports a field that was missing or malformed, by its name. */
  invalid: FieldReporter;
  /** Set by a debug probe: every request made for it. */
  trace?: (request: RequestTrace) => void;
}

export interface ClientHooks {
  /** The shared connection pool every venue request goes through. */
  transport: Transport;
  /** Each answer (HTTP status or "error") of each request, retries included. */
  onAnswer(endpoint: Endpoint, code: string): void;
}

/** A retry is only worth it when it can finish: this much time must be left after the backoff. */
const RETRY_MIN_REMAINING_MS = 500;

function retryable(error: unknown): boolean {
  return error instanceof VenueError && (error.reason === "network" || error.reason === "http_5xx");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

export class VenueClient {
  readonly #venue: VenueConfig;
  readonly #auth: Authenticator | undefined;
  readonly #headers: Record<string, string>;
  readonly #hooks: ClientHooks;
  readonly #bodies: BodyCache;
  #lastHistory: { pages: Order[][]; history: OrderHistory } | undefined;
  /** The last active-order answer, kept to hand back the same object while its orders are unchanged. */
  #lastActive: ActiveOrders | undefined;

  /** `account` undefined makes a client for the public endpoint only, which never sends a credential. */
  constructor(venue: VenueConfig, account: AccountConfig | undefined, hooks: ClientHooks) {
    this.#venue = venue;
    this.#auth = account === undefined ? undefined : authenticator(account.auth);
    this.#headers = account?.headers ?? {};
    this.#hooks = hooks;
    this.#bodies = new BodyCache(venue.reuseUnchangedBodies);
  }

  async accountInfo(collateralId: string, ctx: CallContext): Promise<AccountInfo> {
    return this.#readList("account_info", { collateralId }, ctx, this.#venue.maxItems, undefined, (walk, invalid, precision) =>
      readAccountInfo(walk, collateralId, invalid, precision),
    );
  }

  async activeOrders(ctx: CallContext): Promise<ActiveOrders> {
    const limit = this.#venue.activeOrdersLimit;
    const query = { [this.#venue.activeOrdersLimitParam]: String(limit) };
    const orders = await this.#readOrders("orders_active", query, ctx, limit);
    // The same orders as last time make the same object, so their rendered text is reused.
    const last = this.#lastActive;
    if (last !== undefined && last.orders === orders && last.limit === limit) return last;
    if (last !== undefined) shareIds(orders, last.orders);
    this.#lastActive = { orders, limit };
    return this.#lastActive;
  }

  /**
   * The history, paged within a bound set by configuration: at most ceil(max orders / page size)
   * requests, retries included, however the venue treats offset and limit (history-pager.ts).
   */
  async orderHistory(ctx: CallContext): Promise<OrderHistory> {
    const { historyMaxOrders: max, historyPageSize: pageSize } = this.#venue;
    const budget: RequestBudget = { left: historyRequestBound(max, pageSize) };
    const page = (offset: number, limit: number): Promise<Order[]> =>
      this.#readOrders("orders_history", { offset: String(offset), limit: String(limit) }, ctx, limit, budget);
    const read = await pageHistory(max, pageSize, budget, page);
    const { pages } = read;
    // The same pages as last time make the same history object, so its rendered text is reused.
    const last = this.#lastHistory;
    if (last !== undefined && last.pages.length === pages.length && last.pages.every((p, i) => p === pages[i])) {
      return last.history;
    }
    if (last !== undefined) shareIds(read.orders, last.history.orders);
    const history: OrderHistory = { orders: read.orders, truncated: read.truncated, anomalies: read.anomalies };
    this.#lastHistory = { pages, history };
    return history;
  }

  async markets(ctx: CallContext): Promise<Market[]> {
    return this.#readList("markets", {}, ctx, this.#venue.maxItems, undefined, (walk, invalid) => readMarkets(walk, invalid));
  }

  /**
   * GET, then the body's list walked within bounds (venue.max_items, or the limit asked if larger)
   * and validated by `read`, skipped (same object back) when the body did not change. JSON numbers
   * lose digits past a double's; only when one may have, the body is read again keeping their
   * texts, so derived values come from the numbers as written (a streamed body keeps them at once).
   */
  async #readList<T>(
    endpoint: Endpoint,
    query: Record<string, string>,
    ctx: CallContext,
    maxItems: number,
    budget: RequestBudget | undefined,
    read: (walk: ListWalk, invalid: FieldReporter, precision: Precision) => Promise<T>,
  ): Promise<T> {
    return this.#readBody(endpoint, query, ctx, budget, async (source, url, invalid) => {
      const limits = { maxItems, signal: ctx.deadline.signal };
      const problems = new Map<string, number>();
      const report: FieldReporter = (field, count = 1) => problems.set(field, (problems.get(field) ?? 0) + count);
      const precision: Precision = { lost: false };
      const value = await read(
        bodyWalk(() => source.bytes, url, limits, false),
        report,
        precision,
      );
      if (!precision.lost) {
        for (const [field, count] of problems) invalid(field, count);
        return value;
      }
      return read(
        bodyWalk(() => source.bytes, url, limits, true),
        invalid,
        precision,
      );
    });
  }

  /** An order list: at most the larger of venue.max_items and the limit asked is read. */
  async #readOrders(
    endpoint: "orders_active" | "orders_history",
    query: Record<string, string>,
    ctx: CallContext,
    limit: number,
    budget?: RequestBudget,
  ): Promise<Order[]> {
    const read = await this.#readList(endpoint, query, ctx, Math.max(this.#venue.maxItems, limit), budget, (walk, invalid, precision) =>
      readOrders(walk, endpoint, invalid, precision),
    );
    return read.orders;
  }

  /** GET, then `read` the body, skipped (same object back) when the body did not change. */
  async #readBody<T>(
    endpoint: Endpoint,
    query: Record<string, string>,
    ctx: CallContext,
    budget: RequestBudget | undefined,
    read: (body: BodySource, url: URL, invalid: FieldReporter) => Promise<T>,
  ): Promise<T> {
    const url = this.#url(endpoint, query);
    const key = url.pathname + url.search;
    let body: RawBody;
    try {
      body = await this.#get(endpoint, url, ctx, budget);
    } catch (error) {
      this.#bodies.forget(key);
      throw error;
    }
    return this.#bodies.read(key, body, ctx.invalid, (source, invalid) => read(source, url, invalid));
  }

  #url(endpoint: Endpoint, query: Record<string, string>): URL {
    const url = new URL(PATHS[endpoint], this.#venue.baseUrl);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url;
  }

  /** One GET and at most one retry; with a budget, every attempt spends one and none is made without. */
  async #get(endpoint: Endpoint, url: URL, ctx: CallContext, budget?: RequestBudget): Promise<RawBody> {
    const headers = new Headers({ accept: "application/json", ...this.#headers });
    if (endpoint !== "markets") this.#auth?.apply(headers, url);
    const attempt = async (): Promise<RawBody> => {
      if (budget !== undefined) budget.left--;
      const started = performance.now();
      let result = "error";
      try {
        return await getBody({
          url,
          headers,
          signal: ctx.deadline.signal,
          maxBodyBytes: this.#venue.maxBodyBytes,
          maxRetryAfterSeconds: this.#venue.maxRetryAfterSeconds,
          request: this.#hooks.transport.request,
          onAnswer: (code) => {
            result = code;
            this.#hooks.onAnswer(endpoint, code);
          },
        });
      } catch (error) {
        if (result === "error" && error instanceof VenueError) result = error.reason;
        throw error;
      } finally {
        ctx.trace?.({
          endpoint,
          target: url.pathname + url.search,
          headerNames: [...headers.keys()],
          result,
          durationMs: performance.now() - started,
        });
      }
    };
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error) || (budget !== undefined && budget.left <= 0)) throw error;
      // Jittered backoff of 50-250 ms, and only if the retry still fits in the scrape.
      const backoff = 50 + Math.random() * 200;
      if (ctx.deadline.remainingMs() < backoff + RETRY_MIN_REMAINING_MS) throw error;
      await sleep(backoff, ctx.deadline.signal);
      return attempt();
    }
  }
}
