// The venue client: fetches one endpoint, with at most one retry, and validates what comes back.

import type { AccountConfig, VenueConfig } from "../config/types.js";
import type { Deadline } from "../util/deadline.js";
import { authenticator, type Authenticator } from "./auth.js";
import { PATHS, type Endpoint } from "./endpoints.js";
import { VenueError } from "./errors.js";
import { BodyCache, type BodySource } from "./body-cache.js";
import { getBody, parseBody, parseBodyItems, type RawBody } from "./http.js";
import type { Precision } from "./fields.js";
import { parseAccountInfo, type FieldReporter } from "./parse-account.js";
import { parseMarkets } from "./parse-markets.js";
import { notAnOrderList, parseOrders, readOrderItem } from "./parse-orders.js";
import { historyRequestBound, pageHistory, type RequestBudget } from "./history-pager.js";
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
    return this.#read("account_info", { collateralId }, ctx, (body, invalid, precision) => parseAccountInfo(body, collateralId, invalid, precision));
  }

  async activeOrders(ctx: CallContext): Promise<ActiveOrders> {
    const limit = this.#venue.activeOrdersLimit;
    const query = { [this.#venue.activeOrdersLimitParam]: String(limit) };
    const orders = await this.#readOrders("orders_active", query, ctx);
    // The same orders as last time make the same object, so their rendered text is reused.
    const last = this.#lastActive;
    if (last !== undefined && last.orders === orders && last.limit === limit) return last;
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
      this.#readOrders("orders_history", { offset: String(offset), limit: String(limit) }, ctx, budget);
    const read = await pageHistory(max, pageSize, budget, page);
    const { pages } = read;
    // The same pages as last time make the same history object, so its rendered text is reused.
    const last = this.#lastHistory;
    if (last !== undefined && last.pages.length === pages.length && last.pages.every((p, i) => p === pages[i])) {
      return last.history;
    }
    const history: OrderHistory = { orders: read.orders, truncated: read.truncated, anomalies: read.anomalies };
    this.#lastHistory = { pages, history };
    return history;
  }

  async markets(ctx: CallContext): Promise<Market[]> {
    return this.#read("markets", {}, ctx, (body, invalid) => parseMarkets(body, invalid));
  }

  /** GET, then JSON and validation, skipped (same object back) when the body did not change. */
  async #read<T>(
    endpoint: Endpoint,
    query: Record<string, string>,
    ctx: CallContext,
    validate: (body: unknown, invalid: FieldReporter, precision: Precision) => T,
    budget?: RequestBudget,
  ): Promise<T> {
    return this.#readBody(endpoint, query, ctx, budget, async (source, url, invalid) => {
      const text = source.text();
      // JSON numbers lose digits past a double's; only when one may have, the body is parsed again
      // keeping their texts, so derived values come from the numbers as written.
      const problems: string[] = [];
      const precision: Precision = { lost: false };
      const value = validate(await parseBody(text, url), (field) => problems.push(field), precision);
      if (!precision.lost) {
        for (const field of problems) invalid(field);
        return value;
      }
      return validate(await parseBody(text, url, true), invalid, precision);
    });
  }

  /**
   * An order list: like #read, but each order is read as soon as its batch of the array is parsed,
   * so the parsed JSON of thousands of orders never lives all at once (less survives into the old
   * generation). Invalid fields are reported once the whole body is known to be JSON; a number that
   * lost digits sends the body through #read's exact path instead.
   */
  async #readOrders(endpoint: "orders_active" | "orders_history", query: Record<string, string>, ctx: CallContext, budget?: RequestBudget): Promise<Order[]> {
    return this.#readBody(endpoint, query, ctx, budget, async (source, url, invalid) => {
      const orders: Order[] = [];
      const problems: string[] = [];
      const report = (field: string) => problems.push(field);
      const precision: Precision = { lost: false };
      const isArray = await parseBodyItems(source.bytes, url, (raw) => {
        const order = readOrderItem(raw, report, precision);
        if (order !== undefined) orders.push(order);
      });
      if (!isArray) throw notAnOrderList(endpoint);
      if (!precision.lost) {
        for (const field of problems) invalid(field);
        return orders;
      }
      return parseOrders(await parseBody(source.text(), url, true), endpoint, invalid, precision);
    });
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
