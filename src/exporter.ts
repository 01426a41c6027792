// Glue of one scrape: collect from the venue, count failures, log state changes, render the text.

import type { Logger } from "pino";
import { collectFamilies } from "./collectors/index.js";
import type { EndpointOutcome } from "./collect/outcome.js";
import type { ScrapeResult } from "./collect/result.js";
import { Scraper } from "./collect/scraper.js";
import type { Config } from "./config/types.js";
import { render } from "./metrics/render.js";
import { SelfMetrics } from "./metrics/self.js";
import { capSeries } from "./metrics/series-cap.js";
import type { Deadline } from "./util/deadline.js";
import { Transport } from "./venue/transport.js";

export class Exporter {
  readonly self: SelfMetrics;
  readonly #scraper: Scraper;
  readonly #logger: Logger;
  /** Last known health per endpoint and account, so a change is logged once, not every scrape. */
  readonly #healthy = new Map<string, boolean>();
  readonly #transport = new Transport();
  readonly #maxSeries: number;

  constructor(config: Config, logger: Logger, self: SelfMetrics = new SelfMetrics()) {
    this.self = self;
    this.#logger = logger;
    this.#maxSeries = config.scrape.maxSeries;
    this.#scraper = new Scraper(config, {
      transport: this.#transport,
      onAnswer: (endpoint, code) => self.upstreamAnswer(endpoint, code),
      onInvalidFields: (endpoint, counts) => self.invalidFields(endpoint, counts),
    });
  }

  accountNames(): string[] {
    return this.#scraper.accountNames();
  }

  async collect(deadline: Deadline, options: { accounts?: string[]; markets?: boolean } = {}): Promise<ScrapeResult> {
    const result = await this.#scraper.scrape(deadline, options);
    const outcomes = result.accounts.flatMap((a) => a.outcomes);
    if (result.markets) outcomes.push(result.markets.outcome);
    for (const outcome of outcomes) this.#record(outcome);
    return result;
  }

  /** The full exposition: the exporter's own metrics, then this scrape's families. */
  async metrics(deadline: Deadline, options: { accounts?: string[]; markets?: boolean } = {}): Promise<string> {
    const result = await this.collect(deadline, options);
    const { families, dropped } = capSeries(collectFamilies(result), this.#maxSeries);
    if (dropped > 0) {
      this.self.seriesDropped(dropped);
      this.#logger.warn({ dropped, max: this.#maxSeries }, "scrape over the series cap");
    }
    const [own, scraped] = await Promise.all([this.self.registry.metrics(), render(families)]);
    return own + scraped;
  }

  /** Closes the connections to the venue. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  #record(o: EndpointOutcome): void {
    if (!o.ok && o.reason !== undefined) this.self.upstreamError(o.endpoint, o.reason);
    const key = `${o.endpoint}\u0000${o.account ?? ""}`;
    const before = this.#healthy.get(key);
    this.#healthy.set(key, o.ok);
    const fields = { endpoint: o.endpoint, account: o.account };
    if (!o.ok && before !== false) {
      this.#logger.warn({ ...fields, reason: o.reason, error: o.message }, "venue endpoint failing");
    } else if (o.ok && before === false) {
      this.#logger.info(fields, "venue endpoint recovered");
    }
  }
}
