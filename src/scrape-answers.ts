// Glue of one scrape: the collection (scrape/), its health recorded (endpoint-health.ts), the answer rendered once and shared.

import type { Logger } from "pino";
import { AccountStore, type KeptAnswer } from "./scrape/account-store.js";
import type { ScrapeResult } from "./scrape/result.js";
import { Scraper, type ScraperHooks, type ScrapeOptions } from "./scrape/scraper.js";
import type { AccountConfig, Config } from "./config/types.js";
import { debugReport } from "./debug-report.js";
import { COLLECTORS } from "./collectors/index.js";
import { marginFigures } from "./collectors/account.js";
import type { Collector } from "./metrics/collector.js";
import { Answer, SharedBody } from "./metrics/answer.js";
import { type Exposition, expose, type CollectorOutput } from "./metrics/exposition.js";
import { SelfMetrics } from "./metrics/self.js";
import { type Deadline, orWhenAborted } from "./util/deadline.js";
import { EndpointHealth } from "./endpoint-health.js";
import { VenuePool } from "./venue/request.js";
import { VenueFields } from "./venue/fields.js";
import { RequestPace } from "./venue/request-pace.js";
import { Redactor } from "./util/redact.js";
import { Places } from "./util/places.js";

/** An answer made once and shared; `body` is kept so a later /metrics scrape appends own metrics as they are then. */
interface Made {
  answer: Answer;
  body: SharedBody;
  dropped: number;
  /** The debug report of a probe answer, made once: every debug probe served the answer writes the same bytes. */
  report?: Answer;
}

type AnswerSlot = { answer: KeptAnswer<Made> | undefined };

/** No answer slot (--web.max-requests) freed within the scrape's deadline: the route answers 503. */
export class NoAnswerSlot extends Error {
  override name = "NoAnswerSlot";
}

export class Exporter {
  readonly self: SelfMetrics;
  /** The process's one redactor: the venue's strings, the debug report and the endpoints' messages pass it. */
  readonly redactor: Redactor;
  #scraper: Scraper;
  #config: Config;
  readonly #logger: Logger;
  readonly health: EndpointHealth;
  readonly #pool: VenuePool;
  readonly store = new AccountStore<KeptAnswer<Made>>("");
  /** A collection is rendered and compressed once however many scrapes it serves: /metrics's and the market target's here, a probe's in its account's entry. */
  readonly #answers: { all: AnswerSlot; markets: AnswerSlot } = { all: { answer: undefined }, markets: { answer: undefined } };
  /** Answers made at once (--web.max-requests): the exporter's own work; a scrape waiting for the venue holds none. */
  readonly #answerSlots: Places;
  readonly #now: () => number;
  readonly #collectorOutputs = new Map<Collector, CollectorOutput>();
  readonly #hooks: ScraperHooks;

  constructor(config: Config, logger: Logger, self: SelfMetrics = new SelfMetrics(), now: () => number = Date.now, redactor = new Redactor()) {
    this.self = self;
    this.redactor = redactor;
    this.#logger = logger;
    this.#now = now;
    this.#config = config;
    this.health = new EndpointHealth(this.store, logger, self, now, redactor);
    this.#pool = new VenuePool(config.venue.maxConnections, () => this.self.venueConnectionWaits.inc());
    const { maxConnections, maxRequestsPerSecond: perSecond } = config.venue;
    this.#answerSlots = new Places(config.scrape.maxInFlight === 0 ? Number.POSITIVE_INFINITY : config.scrape.maxInFlight);
    this.self.venueBudget.set(perSecond);
    // Kept across reloads with the pool, as the venue sees one exporter; the collection deadline is read at start-up only, as the scrape's.
    this.#hooks = {
      pool: this.#pool,
      fields: new VenueFields(redactor),
      pace: perSecond > 0 ? new RequestPace(perSecond, (ms) => this.self.venueBudgetWaited(ms)) : undefined,
      // With a budget, a collection in flight waits for at most about a second of it: its own deadline is not spent in line.
      places: new Places(perSecond > 0 ? Math.min(maxConnections, Math.ceil(perSecond)) : maxConnections),
      onAnswer: (endpoint, code) => this.self.requests.inc({ endpoint, code }),
      onInvalidFields: (endpoint, counts) => this.self.invalidFields(endpoint, counts),
      onOutcome: (outcome) => this.health.record(outcome),
      onHistory: (account, history) => this.health.paging(account, history),
      onOrdersFolded: (family, orders) => this.self.orderOutcomesFolded(family, orders),
      collectionSeconds: Math.min(config.scrape.defaultTimeoutSeconds, config.scrape.maxTimeoutSeconds),
    };
    this.#scraper = new Scraper(config, this.#hooks, now, this.store);
  }

  /** Serves `config` from the next scrape on; scrapes in flight finish with the old one, and the promise resolves when they have. */
  reload(config: Config): Promise<void> {
    const retired = this.#scraper;
    this.#scraper = new Scraper(config, this.#hooks, this.#now, this.store);
    this.#config = config;
    return retired.settled();
  }

  accountNames(): string[] {
    return this.#scraper.accountNames();
  }

  ownsMarkets(): boolean {
    return this.#scraper.ownsMarkets;
  }

  account(name: string): AccountConfig | undefined {
    return this.#scraper.account(name);
  }

  /** Scrapes served the same collection share one answer; rejects with NoAnswerSlot when no slot freed before the deadline. */
  async metrics(deadline: Deadline, options: ScrapeOptions = {}): Promise<Answer> {
    const startedBy = options.accounts === undefined ? "a /metrics scrape" : "a probe";
    return (await this.#serve(deadline, { startedBy, ...options })).made.answer;
  }

  /** The collections of a scrape, then their answer: made in a slot, or the one already made for the same collections. */
  async #serve(deadline: Deadline, options: ScrapeOptions): Promise<{ made: Made; result: ScrapeResult }> {
    const result = await this.#scraper.scrape(deadline, options);
    for (const entry of this.store.served(result)) {
      entry.trend.observe(
        performance.now() / 1000,
        (entry.served?.accountInfos ?? []).map((i) => ({ collateralId: i.collateralId, ...marginFigures(i) })),
      );
    }
    // A probe (accounts named) is a pure target: the exporter's own metrics stay on /metrics.
    const own = options.accounts === undefined;
    const slot = this.#answerSlot(own, result);
    const results = [...result.accounts, result.markets, result.thresholds];
    const last = slot.answer;
    let made: Promise<Made>;
    if (last?.results.length === results.length && last.results.every((x, i) => x === results[i])) {
      // A reload's outcome or a rejected scrape must not wait for the next collection to show.
      const again = own && result.collectedAt > last.renderedAt;
      made = again ? last.made.then(async (m) => ({ ...m, answer: await this.#withOwnMetrics(m.body) })) : last.made;
    } else {
      made = this.#answerSlots.run(async () => {
        const { text, dropped } = this.#render(result);
        const body = new SharedBody(text);
        return { answer: own ? await this.#withOwnMetrics(body) : new Answer(body), body, dropped };
      });
      // Stored before it is made, so the scrapes resuming right after this one share it.
      slot.answer = { results, renderedAt: this.#now(), made };
    }
    // A scrape already past its deadline (answered with what is done) waits its turn rather than get a 503.
    const done = await (deadline.signal.aborted ? made : orWhenAborted<Made | undefined>(made, deadline.signal, () => undefined));
    if (done !== undefined) return { made: done, result };
    this.self.scrapesRejected.inc();
    throw new NoAnswerSlot("no answer slot freed within the scrape's deadline");
  }

  /** Where the answer of `result` is kept: an account's probe answer in its entry (none for one a reload removed). */
  #answerSlot(own: boolean, result: ScrapeResult): AnswerSlot {
    if (own) return this.#answers.all;
    const [one] = result.accounts;
    if (one === undefined) return this.#answers.markets;
    return this.store.get(one.account) ?? { answer: undefined };
  }

  /** The exporter's own metrics alone, for the job beside /probe: no venue call, where /metrics collects every account. */
  ownMetrics(): Promise<Answer> {
    return this.#withOwnMetrics(new SharedBody(""));
  }

  /** A debug probe of one account (undefined: the market target): the report of the collection served, made once per answer. */
  async debug(deadline: Deadline, account: AccountConfig | undefined): Promise<Answer> {
    const options = account === undefined ? { accounts: [], marketFamilies: true } : { accounts: [account.name], marketFamilies: false };
    const { made, result } = await this.#serve(deadline, { ...options, startedBy: "a debug probe" });
    if (made.report !== undefined) return made.report;
    const collected = account === undefined ? result.markets : result.accounts[0];
    const startedAt = account === undefined ? result.markets?.readAt : result.accounts[0]?.startedAt;
    const collection = { startedAt, minIntervalSeconds: this.#config.scrape.minCollectionIntervalSeconds };
    const text = debugReport({ account, log: collected?.log, result, dropped: made.dropped, exposition: made.answer.text(), collection });
    made.report = new Answer(new SharedBody(this.redactor.redact(text)));
    return made.report;
  }

  #render(result: ScrapeResult): Exposition {
    const max = this.#config.scrape.maxSeries;
    const exposition = expose(COLLECTORS, result, max, this.#collectorOutputs);
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
    return this.#pool.close();
  }
}
