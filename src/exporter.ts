// Glue of one scrape: the collection (scrape/), its health recorded (endpoint-health.ts), the answer rendered once and shared.

import type { Logger } from "pino";
import { LatestCollection } from "./scrape/latest.js";
import { OrderOutcomes } from "./scrape/order-tally.js";
import type { ScrapeResult } from "./scrape/result.js";
import { Scraper, type ScrapeOptions } from "./scrape/scraper.js";
import type { AccountConfig, Config } from "./config/types.js";
import { debugReport } from "./debug-report.js";
import { COLLECTORS, GIVE_WAY } from "./collectors/index.js";
import type { Collector } from "./metrics/collector.js";
import { Answer, SharedBody } from "./metrics/answer.js";
import { type Exposition, expose, type CollectorOutput } from "./metrics/exposition.js";
import { SelfMetrics } from "./metrics/self.js";
import type { Deadline } from "./util/deadline.js";
import { EndpointHealth } from "./endpoint-health.js";
import { closePool, venuePool } from "./venue/http.js";
import { redact } from "./util/redact.js";

export class Exporter {
  readonly self: SelfMetrics;
  #scraper: Scraper;
  #config: Config;
  readonly #logger: Logger;
  /** The venue's health per endpoint and account, for the logs, the metrics and the status page. */
  readonly health: EndpointHealth;
  readonly #pool: ReturnType<typeof venuePool>;
  /** A collection is rendered and compressed once however many scrapes it serves; /metrics keeps its body to append own metrics. */
  readonly #answers = new Map<
    string,
    { results: unknown[]; renderedAt: number; answer: Promise<Answer>; accountsBody: SharedBody | undefined; dropped: number }
  >();
  /** Each probe answer's debug report, as long as the answer is kept: every debug probe served it writes the same bytes. */
  readonly #reports = new WeakMap<Answer, Answer>();
  readonly #now: () => number;
  /** What the last scrapes served, for the status page: it reads them and never collects. */
  readonly latest = new LatestCollection();
  readonly #collectorOutputs = new Map<Collector, CollectorOutput>();
  /** Outlives reloads: the order counters are counters over the process's life. */
  readonly #orderOutcomes = new OrderOutcomes((family, orders) => this.self.orderOutcomesFolded(family, orders));

  constructor(config: Config, logger: Logger, self: SelfMetrics = new SelfMetrics(), now: () => number = Date.now) {
    this.self = self;
    this.#logger = logger;
    this.#now = now;
    this.#config = config;
    this.health = new EndpointHealth(logger, self, now);
    this.#pool = venuePool(config.venue.maxConnections, () => this.self.venueConnectionWaits.inc());
    this.#scraper = this.#scraperFor(config);
  }

  #scraperFor(config: Config, previous?: Scraper): Scraper {
    return new Scraper(
      config,
      {
        pool: this.#pool,
        onAnswer: (endpoint, code) => this.self.requests.inc({ endpoint, code }),
        onInvalidFields: (endpoint, counts) => this.self.invalidFields(endpoint, counts),
        onCollected: (result) => this.health.record(result),
      },
      this.#now,
      this.#orderOutcomes,
      previous,
    );
  }

  /** Serves `config` from the next scrape on; scrapes in flight finish with the old one. */
  reload(config: Config): void {
    this.#scraper = this.#scraperFor(config, this.#scraper);
    this.#config = config;
  }

  accountNames(): string[] {
    return this.#scraper.accountNames();
  }

  ownsMarkets(): boolean {
    return this.#scraper.ownsMarkets;
  }

  /** A served account by name: another shard's answers like an unknown one. */
  account(name: string): AccountConfig | undefined {
    return this.#scraper.account(name);
  }

  /** Scrapes served the same collection share one answer; a later one gets its body with own metrics as they are now. */
  async metrics(deadline: Deadline, options: ScrapeOptions = {}): Promise<Answer> {
    const startedBy = options.accounts === undefined ? "a /metrics scrape" : "a probe";
    return (await this.#serve(deadline, { startedBy, ...options })).answer;
  }

  async #serve(deadline: Deadline, options: ScrapeOptions): Promise<{ answer: Promise<Answer>; result: ScrapeResult; dropped: number }> {
    const result = await this.#scraper.scrape(deadline, options);
    this.latest.served(result);
    // A probe (accounts named) is a pure target: the exporter's own metrics stay on /metrics.
    const own = options.accounts === undefined;
    const answerKey = `${own ? "all" : "probe"}|${result.accounts.map((a) => a.account).join("\u0000")}|${result.marketFamilies ? "m" : ""}`;
    const results = [...result.accounts, result.markets, result.thresholds];
    const last = this.#answers.get(answerKey);
    if (last?.results.length === results.length && last.results.every((x, i) => x === results[i])) {
      // A reload's outcome or a rejected scrape must not wait for the next collection to show.
      const answer = last.accountsBody === undefined || result.collectedAt <= last.renderedAt ? last.answer : this.#withOwnMetrics(last.accountsBody);
      return { answer, result, dropped: last.dropped };
    }
    const { text, dropped } = this.#render(result);
    const body = new SharedBody(text);
    const answer = own ? this.#withOwnMetrics(body) : Promise.resolve(new Answer(body));
    // Stored before it resolves, so the scrapes resuming right after this one find it.
    this.#answers.set(answerKey, { results, renderedAt: this.#now(), answer, accountsBody: own ? body : undefined, dropped });
    return { answer, result, dropped };
  }

  /** The exporter's own metrics alone, for the job beside /probe: no venue call, where /metrics collects every account. */
  ownMetrics(): Promise<Answer> {
    return this.#withOwnMetrics(new SharedBody(""));
  }

  /** A debug probe of one account (undefined: the market target): the report of the collection served, made once per answer. */
  async debug(deadline: Deadline, account: AccountConfig | undefined, waitedMs = 0): Promise<Answer> {
    const options = account === undefined ? { accounts: [], marketFamilies: true } : { accounts: [account.name], marketFamilies: false };
    const { answer, result, dropped } = await this.#serve(deadline, { ...options, waitedMs, startedBy: "a debug probe" });
    const served = await answer;
    const made = this.#reports.get(served);
    if (made !== undefined) return made;
    const collected = account === undefined ? result.markets : result.accounts[0];
    const startedAt = account === undefined ? result.markets?.readAt : result.accounts[0]?.startedAt;
    const collection = { startedAt, minIntervalSeconds: this.#config.scrape.minCollectionIntervalSeconds };
    const text = debugReport({ account, log: collected?.log, result, dropped, exposition: served.text(), collection });
    const report = new Answer(new SharedBody(redact(text)));
    this.#reports.set(served, report);
    return report;
  }

  #render(result: ScrapeResult): Exposition {
    const max = this.#config.scrape.maxSeries;
    const exposition = expose(COLLECTORS, result, max, this.#collectorOutputs, GIVE_WAY);
    const { dropped, series } = exposition;
    this.self.seriesDuplicated.inc(exposition.duplicates);
    if (dropped > 0) {
      this.self.seriesDropped.inc(dropped);
      this.#logger.warn({ dropped, max }, "scrape over the series cap");
    }
    if (this.#logger.isLevelEnabled("debug")) {
      const failed = result.accounts.flatMap((a) => a.outcomes).filter((o) => !o.ok).length + (result.markets?.outcome.ok === false ? 1 : 0);
      const accounts = result.accounts.map((a) => a.account);
      this.#logger.debug({ accounts, series, dropped, failed, ms: this.#now() - result.collectedAt }, "collection rendered");
    }
    return exposition;
  }

  async #withOwnMetrics(body: SharedBody): Promise<Answer> {
    return new Answer(body, await this.self.registry.metrics());
  }

  close(): Promise<void> {
    return closePool(this.#pool);
  }
}
