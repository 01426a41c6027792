// Glue of one scrape: collect from the venue, count failures, log state changes, render the text.

import type { Logger } from "pino";
import type { EndpointOutcome } from "./collect/result.js";
import { LatestCollection } from "./collect/latest.js";
import { OrderOutcomes } from "./collect/order-outcomes.js";
import type { ScrapeResult } from "./collect/result.js";
import { type CollectionTrace, Scraper, type ScrapeOptions } from "./collect/scraper.js";
import type { AccountConfig, Config } from "./config/types.js";
import { debugReport } from "./debug-report.js";
import { COLLECTORS, GIVE_WAY } from "./collectors/index.js";
import type { Collector } from "./metrics/collector.js";
import { Answer } from "./metrics/answer.js";
import { type Exposition, expose, type RenderedPart } from "./metrics/exposition.js";
import { SelfMetrics } from "./metrics/self.js";
import type { Deadline } from "./util/deadline.js";
import { LineRateLimit } from "./util/line-rate-limit.js";
import type { RequestTrace } from "./venue/client.js";
import type { OrderHistory, PagingAnomaly } from "./venue/snapshot.js";
import { Transport } from "./venue/transport.js";

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The log field of the lines a rate limit held back since the last one, absent when none were. */
function suppressed(held: number): { suppressed?: number } {
  return held > 0 ? { suppressed: held } : {};
}

export class Exporter {
  readonly self: SelfMetrics;
  #scraper: Scraper;
  #config: Config;
  readonly #logger: Logger;
  /** Last known health per endpoint and account, so a change is logged once, not every scrape. */
  readonly #healthy = new Map<string, boolean>();
  /** Last paging anomalies seen per account ("" for none), so a change is logged once. */
  readonly #paging = new Map<string, string>();
  /** Paging lines repeat for every account of a venue that pages wrongly: one a minute per kind, the rest counted in the next. */
  readonly #pagingLines = new LineRateLimit();
  /**
   * A venue endpoint that fails (or recovers) for one account usually does for all: one line a minute per
   * endpoint and reason, the accounts held back counted in the next line and every failure in the metrics.
   */
  readonly #healthLines = new LineRateLimit();
  readonly #transport = new Transport();
  /**
   * The last answer per view (which accounts, markets or not), with the collection results and thresholds it was
   * rendered from and when: a collection is rendered and compressed once however many scrapes it
   * serves. /metrics keeps its venue text too, to put the exporter's own metrics as they are now in front of it.
   */
  readonly #answers = new Map<string, { results: unknown[]; renderedAt: number; answer: Promise<Answer>; venue: string | undefined; dropped: number }>();
  /** The clock of the minimum collection interval and the caches (a test's fake one moves it by hand). */
  readonly #now: () => number;
  /** What the last scrapes served, for the status page: it reads them and never collects. */
  readonly latest = new LatestCollection();
  /** The market families as rendered from the market list last read (see Collector.source). */
  readonly #parts = new Map<Collector, RenderedPart>();
  /** Outlives reloads: the order counters are counters over the process's life. */
  readonly #orderOutcomes = new OrderOutcomes((family, orders) => this.self.orderOutcomesFolded(family, orders));

  constructor(config: Config, logger: Logger, self: SelfMetrics = new SelfMetrics(), now: () => number = Date.now) {
    this.self = self;
    this.#logger = logger;
    this.#now = now;
    this.#config = config;
    this.#scraper = this.#scraperFor(config);
  }

  #scraperFor(config: Config, previous?: Scraper): Scraper {
    return new Scraper(
      config,
      {
        transport: this.#transport,
        onAnswer: (endpoint, code) => this.self.upstreamAnswer(endpoint, code),
        onInvalidFields: (endpoint, counts) => this.self.invalidFields(endpoint, counts),
      },
      this.#now,
      this.#orderOutcomes,
      previous,
    );
  }

  /**
   * Serves a new configuration from the next scrape on; scrapes in flight finish with the old one. An account
   * whose venue settings and credentials did not change keeps its collection and the venue's Retry-After.
   */
  reload(config: Config): void {
    this.#scraper = this.#scraperFor(config, this.#scraper);
    this.#config = config;
  }

  accountNames(): string[] {
    return this.#scraper.accountNames();
  }

  /** Whether this process serves the venue's market target (MARKET_TARGET) and the market families on /metrics. */
  ownsMarkets(): boolean {
    return this.#scraper.ownsMarkets;
  }

  /** A served account by name: another shard's answers like an unknown one. */
  account(name: string): AccountConfig | undefined {
    return this.#scraper.account(name);
  }

  #recordAll(result: ScrapeResult): void {
    const outcomes = result.accounts.flatMap((a) => a.outcomes);
    if (result.markets) outcomes.push(result.markets.outcome);
    for (const outcome of outcomes) this.#record(outcome);
    for (const a of result.accounts) if (a.history !== undefined) this.#recordPaging(a.account, a.history);
  }

  /** Counts the history read's paging anomalies; logs when an account's set of them changes. */
  #recordPaging(account: string, history: OrderHistory): void {
    const kinds: string[] = [];
    for (const [kind, n] of Object.entries(history.anomalies) as Array<[PagingAnomaly, number]>) {
      this.self.pagingAnomaly(kind, n);
      kinds.push(kind);
    }
    const now = kinds.sort().join(",");
    const before = this.#paging.get(account) ?? "";
    this.#paging.set(account, now);
    if (now === before) return;
    // The anomalies are all in the counter above; only the lines are rate-limited.
    const held = this.#pagingLines.take(now !== "" ? "misbehaves" : "behaves");
    if (held === undefined) return;
    if (now !== "") {
      this.#logger.warn({ account, anomalies: kinds, truncated: history.truncated, ...suppressed(held) }, "venue history paging misbehaves");
    } else {
      this.#logger.info({ account, ...suppressed(held) }, "venue history paging behaves again");
    }
  }

  /**
   * A scrape: the exporter's own metrics (on /metrics), then this collection's families. Scrapes
   * served the same collection (joined, or inside the minimum interval) get the same answer, rendered,
   * compressed and counted once; one that comes after the render gets the venue text after the
   * exporter's own metrics as they are now.
   */
  async metrics(deadline: Deadline, options: ScrapeOptions = {}): Promise<Answer> {
    return (await this.#serve(deadline, options)).answer;
  }

  async #serve(deadline: Deadline, options: ScrapeOptions): Promise<{ answer: Promise<Answer>; result: ScrapeResult; dropped: number }> {
    const result = await this.#scraper.scrape(deadline, options);
    this.latest.served(result);
    // A probe (accounts named) is a pure target: the exporter's own metrics stay on /metrics.
    const own = options.accounts === undefined;
    const view = `${own ? "all" : "probe"}|${result.accounts.map((a) => a.account).join("\u0000")}|${result.marketFamilies ? "m" : ""}`;
    const results = [...result.accounts, result.markets, result.thresholds];
    const last = this.#answers.get(view);
    if (last !== undefined && sameList(last.results, results)) {
      // A reload's outcome or a rejected scrape must not wait for the next collection to show.
      const answer = last.venue === undefined || result.collectedAt <= last.renderedAt ? last.answer : this.#withOwn(last.venue);
      return { answer, result, dropped: last.dropped };
    }
    this.#recordAll(result);
    const { text: venue, dropped } = this.#render(result);
    const answer = own ? this.#withOwn(venue) : Promise.resolve(new Answer(venue));
    // Stored before it resolves, so the scrapes resuming right after this one find it.
    this.#answers.set(view, { results, renderedAt: this.#now(), answer, venue: own ? venue : undefined, dropped });
    return { answer, result, dropped };
  }

  /**
   * The exporter's own metrics alone (process, runtime, trading_exporter_*), for the job beside /probe:
   * it calls no venue endpoint, where a scrape of /metrics collects every account.
   */
  ownMetrics(): Promise<Answer> {
    return this.#withOwn("");
  }

  /**
   * A debug probe of one account (or, undefined, of the market target), admitted and served like any probe:
   * it starts a collection only where a probe would, and then reports every request of it; otherwise it
   * reports the collection it was served and when that started.
   */
  async debug(deadline: Deadline, account: AccountConfig | undefined): Promise<string> {
    const requests: RequestTrace[] = [];
    const invalid = new Map<string, number>();
    const started: Array<string | undefined> = [];
    const trace: CollectionTrace = {
      started: (name) => started.push(name),
      request: (r) => requests.push(r),
      invalid: (endpoint, field, count) => invalid.set(`${endpoint} ${field}`, (invalid.get(`${endpoint} ${field}`) ?? 0) + count),
    };
    const options = account === undefined ? { accounts: [], marketFamilies: true } : { accounts: [account.name], marketFamilies: false };
    const { answer, result, dropped } = await this.#serve(deadline, { ...options, trace });
    const collected = account === undefined ? started.includes(undefined) : started.includes(account.name);
    const startedAt = account === undefined ? result.markets?.readAt : result.accounts[0]?.startedAt;
    const collection = { startedAt, byThisProbe: collected, minIntervalSeconds: this.#config.scrape.minCollectionIntervalSeconds };
    return debugReport({ account, requests, invalid, result, dropped, exposition: (await answer).text, collection });
  }

  /** The collection's families as text; counts the series dropped over the cap and the repeats left out. */
  #render(result: ScrapeResult): Exposition {
    const max = this.#config.scrape.maxSeries;
    const exposition = expose(COLLECTORS, result, max, this.#parts, GIVE_WAY);
    const { dropped, series } = exposition;
    this.self.seriesDuplicated(exposition.duplicates);
    if (dropped > 0) {
      this.self.seriesDropped(dropped);
      this.#logger.warn({ dropped, max }, "scrape over the series cap");
    }
    if (this.#logger.isLevelEnabled("debug")) {
      const failed = result.accounts.flatMap((a) => a.outcomes).filter((o) => !o.ok).length + (result.markets?.outcome.ok === false ? 1 : 0);
      const accounts = result.accounts.map((a) => a.account);
      this.#logger.debug({ accounts, series, dropped, failed, ms: this.#now() - result.collectedAt }, "collection rendered");
    }
    return exposition;
  }

  /** The exporter's own metrics as they are now (the Prometheus client renders them), then `venue`. */
  async #withOwn(venue: string): Promise<Answer> {
    return new Answer((await this.self.registry.metrics()) + venue);
  }

  /** Closes the connections to the venue. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  #record(o: EndpointOutcome): void {
    if (!o.ok && o.reason !== undefined) this.self.upstreamError(o.endpoint, o.reason);
    this.latest.outcome(o, this.#now());
    const key = `${o.endpoint}\u0000${o.account ?? ""}`;
    const before = this.#healthy.get(key);
    this.#healthy.set(key, o.ok);
    const fields = { endpoint: o.endpoint, account: o.account };
    if (!o.ok && before !== false) {
      const held = this.#healthLines.take(`${o.endpoint}\u0000${o.reason ?? ""}`);
      if (held === undefined) return;
      this.#logger.warn({ ...fields, reason: o.reason, error: o.message, ...suppressed(held) }, "venue endpoint failing");
    } else if (o.ok && before === false) {
      const held = this.#healthLines.take(`${o.endpoint}\u0000recovered`);
      if (held === undefined) return;
      this.#logger.info({ ...fields, ...suppressed(held) }, "venue endpoint recovered");
    }
  }
}
