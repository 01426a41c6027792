// Collects one scrape: every account's endpoints and the markets in parallel, shared between scrapes, Retry-After honoured.

import { createHash } from "node:crypto";
import { ownsMarkets, shardAccounts } from "../config/sharding.js";
import { Secret } from "../config/secret.js";
import type { Thresholds } from "../config/threshold-table.js";
import type { AccountConfig, Config, VenueConfig } from "../config/types.js";
import { Deadline } from "../util/deadline.js";
import { VenueClient, type CallContext, type ClientHooks } from "../venue/client.js";
import type { Endpoint, RequestTrace } from "../venue/endpoints.js";
import { VenueError } from "../venue/errors.js";
import type { AccountInfo, Market } from "../venue/snapshot.js";
import { type OutcomeFamily, observeOrders } from "./order-tally.js";
import type { AccountResult, ActiveSummary, CollectionLog, EndpointOutcome, HistorySummary, MarketsResult, OrderCounts, ScrapeResult } from "./result.js";
import { summarizeActive, summarizeHistory } from "./order-summary.js";
import { mergeOutcomes, runEndpoint } from "./runner.js";
import { type Collection, joinOrStart } from "./shared-collections.js";
import type { AccountEntry, AccountStore, Entry } from "./account-store.js";
import type { Places } from "../util/places.js";

export interface ScrapeOptions {
  accounts?: string[];
  /** The market list's own families in the answer (default true); the list is read either way. */
  marketFamilies?: boolean;
  /** Who starts a collection this scrape starts, for the debug report of every probe served it ("a /metrics scrape"). */
  startedBy?: string;
}

export interface ScraperHooks extends ClientHooks {
  /** The collections at the venue at once (venue.max_connections, and the budget's requests a second): the rest wait in turn. */
  places: Places;
  onInvalidFields(endpoint: Endpoint, counts: Map<string, number>): void;
  /** Each endpoint call of a collection, once: as it ends, or as a timeout when a scrape was answered without it. */
  onOutcome(outcome: EndpointOutcome): void;
  onHistory(account: string, history: HistorySummary): void;
  /** Orders counted under `other` because their account's order series are at their bound. */
  onOrdersFolded(family: OutcomeFamily, orders: number): void;
  /** The deadline of a collection (the default scrape timeout, capped by the longest): read at start-up only, as those are. */
  collectionSeconds: number;
}

/** What a collection depends on, credentials included (revealed only into the hash), thresholds not (no venue call reads them). */
function identityOf(venue: VenueConfig, account: AccountConfig | undefined): string {
  const text = JSON.stringify(
    { venue, account: account === undefined ? undefined : { ...account, thresholds: undefined } },
    function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key];
      return raw instanceof Secret ? raw.reveal() : value;
    },
  );
  return createHash("sha256").update(text).digest("base64");
}

/** Counts each endpoint's outcome once: one a scrape was answered without is counted as a timeout then, not again when it ends. */
function countOnce(onOutcome: (outcome: EndpointOutcome) => void): (outcome: EndpointOutcome) => void {
  const counted = new Set<Endpoint>();
  return (outcome) => {
    if (!counted.has(outcome.endpoint)) onOutcome(outcome);
    counted.add(outcome.endpoint);
  };
}

function newLog(startedBy: string): CollectionLog {
  return { startedBy, requests: [], invalid: new Map() };
}

function timedOut(endpoint: Endpoint, account: string | undefined): EndpointOutcome {
  const message = `${endpoint}: the shared collection did not finish before this scrape's deadline`;
  return { endpoint, account, ok: false, durationSeconds: 0, reason: "timeout", message };
}

export class Scraper {
  readonly #accounts: Map<string, { config: AccountConfig; client: VenueClient; identity: string }>;
  readonly #publicClient: VenueClient;
  readonly ownsMarkets: boolean;
  /** Each served account's alert thresholds: one object per configuration, so an answer made with other thresholds is never served again. */
  readonly #thresholds: ReadonlyMap<string, Thresholds>;
  readonly #running = new Set<Promise<unknown>>();

  /** Configures `store` for `config`: the entries of accounts it no longer serves go, those whose identity changed start afresh. */
  constructor(
    readonly config: Config,
    readonly hooks: ScraperHooks,
    readonly now: () => number,
    readonly store: AccountStore,
  ) {
    this.ownsMarkets = ownsMarkets(config.sharding);
    this.#publicClient = new VenueClient(config.venue, undefined, hooks);
    this.#accounts = new Map(
      shardAccounts(config).map((a) => [a.name, { config: a, client: new VenueClient(config.venue, a, hooks), identity: identityOf(config.venue, a) }]),
    );
    this.#thresholds = new Map([...this.#accounts].map(([name, a]) => [name, a.config.thresholds]));
    store.configure(new Map([...this.#accounts].map(([name, a]) => [name, a.identity])), identityOf(config.venue, undefined));
  }

  /** Resolves once every collection this scraper started has ended: after a reload, nothing of its configuration runs. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }

  #track<T>(done: Promise<T>): Promise<T> {
    this.#running.add(done);
    const untrack = () => this.#running.delete(done);
    done.then(untrack, untrack);
    return done;
  }

  accountNames(): string[] {
    return [...this.#accounts.keys()];
  }

  account(name: string): AccountConfig | undefined {
    return this.#accounts.get(name)?.config;
  }

  async scrape(deadline: Deadline, options: ScrapeOptions = {}): Promise<ScrapeResult> {
    const names = options.accounts ?? this.accountNames();
    const collectedAt = this.now();
    const startedBy = options.startedBy ?? "a scrape";
    const [accounts, markets] = await Promise.all([
      Promise.all(names.map((name) => this.#account(name, deadline, collectedAt, startedBy))),
      this.#markets(deadline, collectedAt, startedBy),
    ]);
    return { collectedAt, accounts, markets, marketFamilies: options.marketFamilies ?? true, thresholds: this.#thresholds };
  }

  #account(name: string, deadline: Deadline, arrivedAt: number, startedBy: string): Promise<AccountResult> {
    const entry = this.store.get(name)!; // the exporter looks a target up in this scraper's names first
    const last = entry.shared;
    if (last?.value !== undefined && this.#isRecent(last.startedAt, arrivedAt)) return Promise.resolve(last.value);
    // Only the page count: a closure of the new collection holding the last would keep two an account.
    return joinOrStart(entry, this.now, deadline, (value) => this.#collectAccount(name, entry, newLog(startedBy), value?.history?.askNext ?? 1));
  }

  /** Started less than the minimum interval before the scrape arrived, or since: served again (never across a clock stepped back). */
  #isRecent(startedAt: number, arrivedAt: number): boolean {
    const minMs = this.config.scrape.minCollectionIntervalSeconds * 1000;
    return minMs > 0 && this.now() >= startedAt && arrivedAt - startedAt < minMs;
  }

  /** The public market list: a good read is kept venue.markets_cache_seconds, any read the minimum interval; neither across a clock stepped back. */
  #markets(deadline: Deadline, arrivedAt: number, startedBy: string): Promise<MarketsResult> {
    const cached = (result: MarketsResult) => {
      const age = this.now() - result.readAt;
      return result.outcome.ok && age >= 0 && age < this.config.venue.marketsCacheSeconds * 1000;
    };
    const last = this.store.markets.shared;
    if (last?.value !== undefined && (cached(last.value) || this.#isRecent(last.startedAt, arrivedAt))) return Promise.resolve(last.value);
    return joinOrStart(this.store.markets, this.now, deadline, () => this.#collectMarkets(newLog(startedBy)));
  }

  #collectMarkets(log: CollectionLog): Collection<MarketsResult> {
    const count = countOnce(this.hooks.onOutcome);
    const resultOf = (outcome: EndpointOutcome, markets?: Market[]): MarketsResult => {
      count(outcome);
      return { outcome, markets, readAt: this.now(), maxAgeSeconds: this.config.venue.marketsCacheSeconds };
    };
    const done = this.#track(
      this.hooks.places.run(async () => {
        const deadline = new Deadline(this.hooks.collectionSeconds);
        const run = await this.#call("markets", this.store.markets, undefined, deadline, (ctx) => this.#publicClient.markets(ctx), log);
        deadline.end();
        return { ...resultOf(run.outcome, run.value), log };
      }),
    );
    return { done, partial: () => resultOf(timedOut("markets", undefined)) };
  }

  async #call<T>(
    endpoint: Endpoint,
    entry: Entry<unknown>,
    account: string | undefined,
    deadline: Deadline,
    fn: (ctx: CallContext) => Promise<T>,
    log: CollectionLog,
  ) {
    const waitMs = (entry.retryUntil.get(endpoint) ?? 0) - performance.now();
    if (waitMs > 0) {
      return runEndpoint(endpoint, account, () =>
        Promise.reject(new VenueError("rate_limited", `${endpoint}: skipped, the venue asked to wait ${Math.ceil(waitMs / 1000)} s more`)),
      );
    }
    const counts = new Map<string, number>();
    const ctx: CallContext = {
      deadline,
      invalid: (field, count = 1) => {
        counts.set(field, (counts.get(field) ?? 0) + count);
        const key = `${endpoint} ${field}`;
        log.invalid.set(key, (log.invalid.get(key) ?? 0) + count);
      },
      trace: (r: RequestTrace) => log.requests.push(r),
    };
    const run = await runEndpoint(endpoint, account, () => fn(ctx));
    if (counts.size > 0) this.hooks.onInvalidFields(endpoint, counts);
    const retryAfterSeconds = run.outcome.retryAfterSeconds ?? 0;
    if (retryAfterSeconds > 0) entry.retryUntil.set(endpoint, performance.now() + retryAfterSeconds * 1000);
    return run;
  }

  /** One account's collection: every endpoint at once, once it holds a place, each part kept as it ends; the history asks `firstPages` at once, as many as the
   * last read used. A scrape that cannot wait is answered with the parts done (partial), the others timed out and counted so, once. */
  #collectAccount(name: string, entry: AccountEntry, log: CollectionLog, firstPages: number): Collection<AccountResult> {
    const { config, client } = this.#accounts.get(name)!;
    const infos: Array<{ outcome: EndpointOutcome; value: AccountInfo | undefined } | undefined> = config.collateralIds.map(() => undefined);
    const parts: {
      startedAt?: number;
      active?: { outcome: EndpointOutcome; summary: ActiveSummary | undefined };
      history?: { outcome: EndpointOutcome; summary: HistorySummary | undefined };
    } = {};
    const count = countOnce(this.hooks.onOutcome);
    const resultOf = (orderCounts: OrderCounts | undefined): AccountResult => {
      const info = infos.every((r) => r !== undefined) ? infos.map((r) => r!.outcome) : undefined;
      const outcomes = [
        info === undefined ? timedOut("account_info", name) : mergeOutcomes("account_info", name, info),
        parts.active?.outcome ?? timedOut("orders_active", name),
        parts.history?.outcome ?? timedOut("orders_history", name),
      ];
      for (const outcome of outcomes) count(outcome);
      return {
        account: name,
        startedAt: parts.startedAt,
        outcomes,
        accountInfos: infos.flatMap((r) => r?.value ?? []),
        activeOrders: parts.active?.summary,
        history: parts.history?.summary,
        orderCounts,
        ...(parts.startedAt === undefined ? {} : { log }),
      };
    };
    const done = this.#track(
      this.hooks.places.run(async () => {
        parts.startedAt = this.now();
        const deadline = new Deadline(this.hooks.collectionSeconds);
        const [, active, history] = await Promise.all([
          Promise.all(
            config.collateralIds.map(async (id, i) => {
              infos[i] = await this.#call("account_info", entry, name, deadline, (ctx) => client.accountInfo(id, ctx), log);
            }),
          ),
          this.#call("orders_active", entry, name, deadline, (ctx) => client.activeOrders(ctx), log).then((run) => {
            parts.active = { outcome: run.outcome, summary: run.value && summarizeActive(run.value) };
            return run.value;
          }),
          this.#call("orders_history", entry, name, deadline, (ctx) => client.orderHistory(ctx, firstPages), log).then((run) => {
            parts.history = { outcome: run.outcome, summary: run.value && summarizeHistory(run.value) };
            return run.value;
          }),
        ]);
        deadline.end();
        if (parts.history?.summary !== undefined) this.hooks.onHistory(name, parts.history.summary);
        // Counted here, once per collection: scrapes sharing or reusing it see the same counts.
        const { venue, scrape } = this.config;
        const limits = { historyMaxOrders: venue.historyMaxOrders, maxSeries: scrape.maxOrderOutcomeSeries, onFolded: this.hooks.onOrdersFolded };
        return resultOf(observeOrders(entry.orders, active, history, limits));
      }),
    );
    return { done, partial: () => resultOf(entry.orders.counts) };
  }
}
