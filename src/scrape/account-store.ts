// Everything kept between scrapes, one entry per account and one for the market list: a reload drops the accounts it removes.

import type { Endpoint } from "../venue/endpoints.js";
import type { FailureReason } from "../venue/errors.js";
import { MarginTrend } from "./margin-trend.js";
import { AccountOrders } from "./order-tally.js";
import type { AccountResult, MarketsResult, ScrapeResult } from "./result.js";
import type { Shared } from "./shared-collections.js";

export interface LastFailure {
  reason: FailureReason;
  httpStatus: number | undefined;
  /** The failure in our words, as the log writes it ("GET /v1/private/account-info: connection refused (ECONNREFUSED)"). */
  message: string | undefined;
  at: number;
}

export class Entry<T> {
  shared: Shared<T> | undefined;
  /** Per endpoint, until when (performance.now() ms, so a wall clock stepped back never stretches it) the venue asked to be left alone. */
  readonly retryUntil = new Map<Endpoint, number>();
  /** Last known health per endpoint: a change is logged once, not every scrape. */
  readonly healthy = new Map<string, boolean>();
  /** Remembered past the endpoint's recovery, so the page can say what last went wrong and when. */
  readonly failures = new Map<string, LastFailure>();
  served: T | undefined;

  /** `identity`: what the collection depends on (credentials hashed); a reload that changes it starts afresh. */
  constructor(public identity: string) {}
}

export type KeptAnswer<M> = { results: readonly unknown[]; renderedAt: number; made: Promise<M> };

export class AccountEntry<A = unknown> extends Entry<AccountResult> {
  /** Seen order ids and the order counters: counters over the process's life, kept across reloads that keep the account. */
  readonly orders = new AccountOrders();
  paging = "";
  /** The page's time-to-liquidation, from the collections served. */
  readonly trend = new MarginTrend();
  /** The probe answer of the last collection: rendered and compressed once however many probes it serves. */
  answer: A | undefined;
}

export class AccountStore<A = unknown> {
  readonly #accounts = new Map<string, AccountEntry<A>>();
  readonly markets: Entry<MarketsResult>;
  #marketsServedAt: number | undefined;

  constructor(venueIdentity: string) {
    this.markets = new Entry(venueIdentity);
  }

  get(name: string): AccountEntry<A> | undefined {
    return this.#accounts.get(name);
  }

  /** A collection a scrape served, for the page; a scrape that gave up waiting has no data of its own, so the last real one stays. Returns the entries served anew. */
  served(result: ScrapeResult): Array<AccountEntry<A>> {
    const fresh: Array<AccountEntry<A>> = [];
    for (const a of result.accounts) {
      const entry = this.#accounts.get(a.account);
      if (entry === undefined || a.startedAt === undefined || entry.served === a) continue;
      entry.served = a;
      fresh.push(entry);
    }
    if (result.markets !== undefined) {
      this.markets.served = result.markets;
      this.#marketsServedAt = result.collectedAt;
    }
    return fresh;
  }

  lastServed(accounts: readonly string[]): ScrapeResult | undefined {
    const found = accounts.flatMap((name) => this.#accounts.get(name)?.served ?? []);
    const markets = this.markets.served;
    if (found.length === 0 && markets === undefined) return undefined;
    const newest = Math.max(0, ...found.map((a) => a.startedAt ?? 0));
    return { collectedAt: this.#marketsServedAt ?? newest, accounts: found, markets, marketFamilies: true };
  }

  /** Keeps an entry per account of `accounts` (name to identity), drops the rest; a changed identity starts afresh, its counters kept. */
  configure(accounts: ReadonlyMap<string, string>, venueIdentity: string): void {
    for (const name of this.#accounts.keys()) if (!accounts.has(name)) this.#accounts.delete(name);
    for (const [name, identity] of accounts) {
      const entry = this.#accounts.get(name);
      if (entry === undefined) this.#accounts.set(name, new AccountEntry<A>(identity));
      else renew(entry, identity);
    }
    renew(this.markets, venueIdentity);
  }
}

function renew<T>(entry: Entry<T>, identity: string): void {
  if (entry.identity === identity) return;
  entry.identity = identity;
  entry.shared = undefined;
  entry.retryUntil.clear();
}
