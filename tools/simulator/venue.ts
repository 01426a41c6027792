// The four read endpoints: routing table, API-key check, query validation and cached response bodies.
import type { IncomingMessage } from "node:http";
import { detailedAccount, summaryAccount } from "./account-view.js";
import type { SimConfig } from "./config.js";
import type { DeskAccount } from "./desk-account.js";
import { errorBody } from "./http-util.js";
import { nudged } from "./moving.js";
import { ordersArrayBytes } from "./orders.js";
import type { SimState } from "./state.js";
import type { SimEndpoint, VenueAnswer } from "./types.js";

export type { VenueAnswer } from "./types.js";

export const VENUE_ROUTES: ReadonlyMap<string, SimEndpoint> = new Map([
  ["/v1/private/account-info", "account_info"],
  ["/v1/private/orders/history", "orders_history"],
  ["/v1/private/orders/realtime", "orders_active"],
  ["/v1/public/markets", "markets"],
]);

const PRIVATE: ReadonlySet<SimEndpoint> = new Set(["account_info", "orders_history", "orders_active"]);
const HISTORY_DEFAULT_LIMIT = 25;
const ACTIVE_DEFAULT_LIMIT = 1000;
const CACHE_ENTRIES = 64;

/** What the venue would answer; `value` rebuilds the JSON value for faults that corrupt it. */
function errorAnswer(status: number, message: string): VenueAnswer {
  const body = errorBody(message);
  return { status, body, value: () => ({ error: message }) };
}

/** A non-negative integer query parameter; undefined when absent, NaN when invalid. */
function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
}

function optionalParam(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  return raw === null || raw === "" ? undefined : raw;
}

function jsonBytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** One account's answers: built from the state at the current tick, each kept until the next. */
export class VenueResponder {
  private cache = new Map<string, Buffer>();
  private cacheVersion = -1;
  private markets: { version: number; body: Buffer } | undefined;

  constructor(
    private readonly state: SimState,
    private readonly account: DeskAccount,
    private readonly config: SimConfig,
    /** The key of the account this responder answers for. */
    private readonly apiKey: string,
    /** Answers given so far per request, for the moving bench mode: each differs from the one before. */
    private readonly moves = new Map<string, number>(),
  ) {}

  /** Serialise once per state version and request shape: a 50,000-order list is encoded once per tick. */
  private cached(key: string, build: () => Buffer): Buffer {
    if (this.cacheVersion !== this.state.version) {
      this.cache.clear();
      this.cacheVersion = this.state.version;
    }
    let body = this.cache.get(key);
    if (body === undefined) {
      body = build();
      if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, body);
    }
    return body;
  }

  private authorized(req: IncomingMessage): boolean {
    return req.headers[this.config.apiKeyHeader.toLowerCase()] === this.apiKey;
  }

  answer(endpoint: SimEndpoint, req: IncomingMessage, url: URL): VenueAnswer {
    const answer = this.unmoved(endpoint, req, url);
    if (!this.config.moving || !PRIVATE.has(endpoint) || answer.status !== 200) return answer;
    const key = url.pathname + url.search;
    const n = this.moves.get(key) ?? 0;
    if (this.moves.size >= CACHE_ENTRIES) this.moves.clear();
    this.moves.set(key, n + 1);
    return { ...answer, body: nudged(endpoint, answer.body, n) };
  }

  private unmoved(endpoint: SimEndpoint, req: IncomingMessage, url: URL): VenueAnswer {
    if (PRIVATE.has(endpoint) && !this.authorized(req)) return errorAnswer(401, "unauthorized");
    const params = url.searchParams;
    switch (endpoint) {
      case "account_info": {
        const id = params.get("collateralId") ?? "";
        const account = this.state.collateral(this.account, id);
        if (account === undefined) return errorAnswer(400, "unknown collateralId");
        const value = () => (account.collateral.shape === "detailed" ? detailedAccount(account) : summaryAccount(account));
        return { status: 200, body: this.cached(`account:${id}`, () => jsonBytes(value())), value };
      }
      case "orders_history": {
        const offset = intParam(params, "offset", 0);
        const limit = intParam(params, "limit", HISTORY_DEFAULT_LIMIT);
        if (Number.isNaN(offset)) return errorAnswer(400, "invalid offset");
        if (Number.isNaN(limit)) return errorAnswer(400, "invalid limit");
        const marketId = optionalParam(params, "marketId");
        const records = () => this.account.book.historyOrders(this.state.ticks, marketId, offset, limit);
        const body = this.cached(`history:${marketId ?? ""}:${offset}:${limit}`, () => ordersArrayBytes(records()));
        return { status: 200, body, value: () => records().map((r) => r.data) };
      }
      case "orders_active": {
        const limit = intParam(params, "limit", ACTIVE_DEFAULT_LIMIT);
        if (Number.isNaN(limit)) return errorAnswer(400, "invalid limit");
        const marketId = optionalParam(params, "marketId");
        const records = () => this.account.book.activeOrders(this.state.ticks, marketId, limit);
        const body = this.cached(`active:${marketId ?? ""}:${limit}`, () => ordersArrayBytes(records()));
        return { status: 200, body, value: () => records().map((r) => r.data) };
      }
      case "markets": {
        const value = () => this.state.markets.map((m) => m.market);
        if (this.markets?.version !== this.state.marketsVersion) this.markets = { version: this.state.marketsVersion, body: jsonBytes(value()) };
        return { status: 200, body: this.markets.body, value };
      }
    }
  }
}
