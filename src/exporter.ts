// Glue of one scrape: collect from the venue, count failures, log state changes, render the text.

import type { Logger } from "pino";
import type { EndpointOutcome } from "./collect/outcome.js";
import { LatestCollection } from "./collect/latest.js";
import { OrderOutcomes } from "./collect/order-outcomes.js";
import type { ScrapeResult } from "./collect/result.js";
import { Scraper, type ScrapeOptions } from "./collect/scraper.js";
import type { AccountConfig, Config } from "./config/types.js";
import { debugReport } from "./debug-report.js";
import { Body, familiesToOpenMetrics } from "./metrics/body.js";
import { COLLECTORS } from "./collectors/index.js";
import { Exposition } from "./metrics/exposition.js";
import { selfToOpenMetrics } from "./metrics/openmetrics.js";
import { SelfMetrics } from "./metrics/self.js";
import type { Deadline } from "./util/deadline.js";
import { LineRateLimit } from "./util/line-rate-limit.js";
import type { RequestTrace } from "./venue/client.js";
import type { OrderHistory, PagingAnomaly } from "./venue/snapshot.js";
import { Transport } from "./venue/transport.js";

/**
 * One collection's exposition in two parts, each encoded once per format and shared by every scrape
 * that joined the collection: the head (the exporter's own metrics and what changes every
 * collection) and the part rendered from unchanged venue data (shared across collections too).
 */
export interface ScrapeOutput {
  head: Body;
  reused: Body | undefined;
}

/** The whole exposition as Prometheus text. */
function outputText(out: ScrapeOutput): string {
  return out.head.text + (out.reused?.text ?? "");
}

/** An output with the venue families of its head kept apart, so the exporter's own can be read again. */
type Rendered = ScrapeOutput & { fresh: string; dropped: number };

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
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
  readonly #exposition = new Exposition(COLLECTORS);
  /** The last output per view, with the collection results it was rendered from and when. */
  readonly #outputs = new Map<string, { results: unknown[]; renderedAt: number; output: Promise<Rendered> }>();
  /** The clock of the minimum collection interval and the caches (a test's fake one moves it by hand). */
  readonly #now: () => number;
  /** What the last scrapes served, for the status page: it reads them and never collects. */
  readonly latest = new LatestCollection();
  /** Outlives reloads: the order counters are counters over the process's life. */
  readonly #orderOutcomes = new OrderOutcomes();

  constructor(config: Config, logger: Logger, self: SelfMetrics = new SelfMetrics(), now: () => number = Date.now) {
    this.self = self;
    this.#logger = logger;
    this.#now = now;
    this.#config = config;
    this.#scraper = this.#scraperFor(config);
  }

  #scraperFor(config: Config): Scraper {
    return new Scraper(
      config,
      {
        transport: this.#transport,
        onAnswer: (endpoint, code) => this.self.upstreamAnswer(endpoint, code),
        onInvalidFields: (endpoint, counts) => this.self.invalidFields(endpoint, counts),
      },
      this.#now,
      this.#orderOutcomes,
    );
  }

  /** Serves a new configuration from the next scrape on; scrapes in flight finish with the old one. */
  reload(config: Config): void {
    this.#scraper = this.#scraperFor(config);
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

  async collect(deadline: Deadline, options: ScrapeOptions = {}): Promise<ScrapeResult> {
    const result = await this.#scraper.scrape(deadline, options);
    this.#recordAll(result);
    return result;
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
    const suppressed = held > 0 ? { suppressed: held } : {};
    if (now !== "") {
      this.#logger.warn({ account, anomalies: kinds, truncated: history.truncated, ...suppressed }, "venue history paging misbehaves");
    } else {
      this.#logger.info({ account, ...suppressed }, "venue history paging behaves again");
    }
  }

  /**
   * A scrape: the exporter's own metrics, then this collection's families. Scrapes that joined the same collection (same result objects) get the same output,
   * rendered, encoded and counted once: a burst of 50 costs one render, not 50. A scrape that arrives after the render and is
   * served the same collection (inside the minimum interval) gets its venue part as rendered and the exporter's own metrics as they are now.
   */
  async metrics(deadline: Deadline, options: ScrapeOptions = {}): Promise<ScrapeOutput> {
    const result = await this.#scraper.scrape(deadline, options);
    this.latest.served(result);
    // A probe (accounts named) is a pure target: the exporter's own metrics stay on /metrics.
    const own = options.accounts === undefined;
    const view = `${own ? "all" : "probe"}|${result.accounts.map((a) => a.account).join("\u0000")}|${result.marketFamilies ? "m" : ""}`;
    const results = [...result.accounts, result.markets];
    const last = this.#outputs.get(view);
    if (last !== undefined && sameList(last.results, results)) {
      if (!own || result.collectedAt <= last.renderedAt) return last.output;
      // A reload's outcome or a rejected scrape must not wait for the next collection to show.
      const { fresh, reused } = await last.output;
      return { head: await this.#head(fresh, true), reused };
    }
    this.#recordAll(result);
    // Stored before it resolves, so the scrapes resuming right after this one find it.
    const output = this.#render(result, own);
    this.#outputs.set(view, { results, renderedAt: this.#now(), output });
    return output;
  }

  /**
   * The exporter's own metrics alone (process, runtime, trading_exporter_*), for the job beside /probe:
   * it calls no venue endpoint, where a scrape of /metrics collects every account.
   */
  async ownMetrics(): Promise<ScrapeOutput> {
    return { head: await this.#head("", true), reused: undefined };
  }

  /** A debug probe of one account (or, undefined, of the market target): its own collection, every request and problem reported as text. */
  async debug(deadline: Deadline, account: AccountConfig | undefined): Promise<string> {
    const requests: RequestTrace[] = [];
    const invalid = new Map<string, number>();
    const result = await this.collect(deadline, {
      accounts: account === undefined ? [] : [account.name],
      marketFamilies: account === undefined,
      trace: (r) => requests.push(r),
      onInvalid: (endpoint, field, count) => invalid.set(`${endpoint} ${field}`, (invalid.get(`${endpoint} ${field}`) ?? 0) + count),
    });
    const output = await this.#render(result, false);
    return debugReport({ account, requests, invalid, result, dropped: output.dropped, exposition: outputText(output) });
  }

  /**
   * `withOwn`: the exporter's own metrics (process, runtime, counters) head the exposition.
   * Also says how many series were dropped over the cap (the debug report shows it).
   */
  async #render(result: ScrapeResult, withOwn: boolean): Promise<Rendered> {
    const max = this.#config.scrape.maxSeries;
    const { fresh, reused, dropped, duplicates, series } = this.#exposition.render(result, max);
    this.self.seriesDuplicated(duplicates);
    if (dropped > 0) {
      this.self.seriesDropped(dropped);
      this.#logger.warn({ dropped, max }, "scrape over the series cap");
    }
    if (this.#logger.isLevelEnabled("debug")) {
      const failed = result.accounts.flatMap((a) => a.outcomes).filter((o) => !o.ok).length + (result.markets?.outcome.ok === false ? 1 : 0);
      const accounts = result.accounts.map((a) => a.account);
      this.#logger.debug({ accounts, series, dropped, failed, ms: this.#now() - result.collectedAt }, "collection rendered");
    }
    return { head: await this.#head(fresh, withOwn), reused, fresh, dropped };
  }

  /** The head of an exposition: the exporter's own metrics if asked, then the venue families that change every collection. */
  async #head(fresh: string, withOwn: boolean): Promise<Body> {
    // The Prometheus client renders the exporter's own (few) metrics; the scrape's are already text.
    const own = withOwn ? await this.self.registry.metrics() : "";
    return new Body(own + fresh, () => selfToOpenMetrics(own) + familiesToOpenMetrics(fresh));
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
      this.#logger.warn({ ...fields, reason: o.reason, error: o.message, ...(held > 0 ? { suppressed: held } : {}) }, "venue endpoint failing");
    } else if (o.ok && before === false) {
      const held = this.#healthLines.take(`${o.endpoint}\u0000recovered`);
      if (held === undefined) return;
      this.#logger.info({ ...fields, ...(held > 0 ? { suppressed: held } : {}) }, "venue endpoint recovered");
    }
  }
}
