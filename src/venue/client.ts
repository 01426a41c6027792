// The venue client: fetches one endpoint, with at most one retry, and validates what comes back.

import type { AccountConfig, VenueConfig } from "../config/types.js";
import type { Deadline } from "../util/deadline.js";
import { authenticator, type Authenticator } from "./auth.js";
import { PATHS, type Endpoint } from "./endpoints.js";
import { VenueError } from "./errors.js";
import { getJson } from "./http.js";
import { parseAccountInfo, type FieldReporter } from "./parse-account.js";
import { parseMarkets } from "./parse-markets.js";
import { parseOrders } from "./parse-orders.js";
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
  /** The shared connection pool; Node's global one when absent. */
  transport?: Transport;
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

  /** `account` undefined makes a client for the public endpoint only, which never sends a credential. */
  constructor(venue: VenueConfig, account: AccountConfig | undefined, hooks: ClientHooks) {
    this.#venue = venue;
    this.#auth = account === undefined ? undefined : authenticator(account.auth);
    this.#headers = account?.headers ?? {};
    this.#hooks = hooks;
  }

  async accountInfo(collateralId: string, ctx: CallContext): Promise<AccountInfo> {
    const body = await this.#get("account_info", { collateralId }, ctx);
    return parseAccountInfo(body, collateralId, ctx.invalid);
  }

  async activeOrders(ctx: CallContext): Promise<ActiveOrders> {
    const limit = this.#venue.activeOrdersLimit;
    const body = await this.#get("orders_active", { [this.#venue.activeOrdersLimitParam]: String(limit) }, ctx);
    return { orders: parseOrders(body, "orders_active", ctx.invalid), limit };
  }

  /**
   * Pages through the history with offset/limit until a short or empty page or the configured
   * maximum. Orders seen twice (the list shifted between pages) are counted once.
   */
  async orderHistory(ctx: CallContext): Promise<OrderHistory> {
    const { historyMaxOrders: max, historyPageSize: pageSize } = this.#venue;
    const orders: Order[] = [];
    const seen = new Set<string>();
    let offset = 0;
    while (orders.length < max) {
      const limit = Math.min(pageSize, max - orders.length);
      const body = await this.#get("orders_history", { offset: String(offset), limit: String(limit) }, ctx);
      const page = parseOrders(body, "orders_history", ctx.invalid);
      for (const order of page.slice(0, max - orders.length)) {
        if (order.id !== undefined) {
          if (seen.has(order.id)) continue;
          seen.add(order.id);
        }
        orders.push(order);
      }
      if (page.length < limit) break;
      offset += page.length;
    }
    return { orders };
  }

  async markets(ctx: CallContext): Promise<Market[]> {
    const body = await this.#get("markets", {}, ctx);
    return parseMarkets(body, ctx.invalid);
  }

  async #get(endpoint: Endpoint, query: Record<string, string>, ctx: CallContext): Promise<unknown> {
    const url = new URL(PATHS[endpoint], this.#venue.baseUrl);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers = new Headers({ accept: "application/json", ...this.#headers });
    if (endpoint !== "markets") this.#auth?.apply(headers, url);
    const attempt = async (): Promise<unknown> => {
      const started = performance.now();
      let result = "error";
      try {
        return await getJson({
        url,
        headers,
        signal: ctx.deadline.signal,
        maxBodyBytes: this.#venue.maxBodyBytes,
        maxRetryAfterSeconds: this.#venue.maxRetryAfterSeconds,
        ...(this.#hooks.transport === undefined ? {} : { dispatcher: this.#hooks.transport.dispatcher }),
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
      if (!retryable(error)) throw error;
      // Jittered backoff of 50-250 ms, and only if the retry still fits in the scrape.
      const backoff = 50 + Math.random() * 200;
      if (ctx.deadline.remainingMs() < backoff + RETRY_MIN_REMAINING_MS) throw error;
      await sleep(backoff, ctx.deadline.signal);
      return attempt();
    }
  }
}
