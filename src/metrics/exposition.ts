// Renders a scrape collector by collector, reusing a collector's text while the venue data it
// reads is the same objects as last time (an unchanged body keeps its parsed object).

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "../collectors/collector.js";
import { COLLECTORS, collectFamilies } from "../collectors/index.js";
import { capSeries } from "./series-cap.js";
import { joinFamilies, renderFamily, renderText } from "./text-render.js";

interface Chunk {
  inputs: readonly unknown[];
  /** The collector's families as text, without the final newline; "" when it had none. */
  text: string;
  series: number;
}

export interface Rendered {
  text: string;
  series: number;
  /** Series left out over the cap. */
  dropped: number;
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class Exposition {
  /** One entry per collector and view (which accounts, markets or not), so /metrics and /probe don't evict each other. */
  readonly #chunks = new Map<string, Chunk>();
  readonly #collectors: readonly Collector[];

  constructor(collectors: readonly Collector[] = COLLECTORS) {
    this.#collectors = collectors;
  }

  render(scrape: ScrapeResult, maxSeries: number): Rendered {
    const view = `${scrape.accounts.map((a) => a.account).join("\u0000")}|${scrape.markets === undefined ? "" : "m"}`;
    const texts: string[] = [];
    let series = 0;
    this.#collectors.forEach((collector, i) => {
      const chunk = this.#chunk(collector, `${i}|${view}`, scrape);
      if (chunk.text !== "") texts.push(chunk.text);
      series += chunk.series;
    });
    if (series <= maxSeries) return { text: joinFamilies(texts), series, dropped: 0 };
    // Over the cap (rare): cut family by family, in collector order.
    const { families, dropped } = capSeries(collectFamilies(scrape), maxSeries);
    return { text: renderText(families), series: series - dropped, dropped };
  }

  #chunk(collector: Collector, key: string, scrape: ScrapeResult): Chunk {
    const inputs = collector.inputs(scrape);
    const cached = this.#chunks.get(key);
    if (inputs !== undefined && cached !== undefined && sameInputs(inputs, cached.inputs)) return cached;
    const families = collector.collect(scrape).filter((f) => f.samples.length > 0);
    const chunk: Chunk = {
      inputs: inputs ?? [],
      text: families.map(renderFamily).join("\n\n"),
      series: families.reduce((n, f) => n + f.samples.length, 0),
    };
    if (inputs !== undefined) this.#chunks.set(key, chunk);
    return chunk;
  }
}
