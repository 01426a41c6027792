// Renders a scrape collector by collector. A collector whose inputs are the same objects as last
// time (the venue's bodies did not change) reuses its text, and the reused part of the exposition
// is one shared Body, encoded once for every scrape that serves it.

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "../collectors/collector.js";
import { COLLECTORS, collectFamilies } from "../collectors/index.js";
import { Body } from "./body.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderFamily, renderText } from "./text-render.js";

interface Chunk {
  inputs: readonly unknown[];
  /** Each of the collector's non-empty families as text, without a final newline. */
  texts: string[];
  series: number;
  /** Series left out as repeats of a label set (dedupe-series.ts). */
  duplicates: number;
}

export interface Rendered {
  /** What changes every scrape (durations, successes), as text ending in a newline, or "". */
  fresh: string;
  /** What was rendered from unchanged inputs, shared between scrapes; undefined when empty. */
  reused: Body | undefined;
  series: number;
  /** Series left out over the cap. */
  dropped: number;
  /** Series left out as repeats of a label set in their family. */
  duplicates: number;
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const joined = (texts: string[]): string => (texts.length === 0 ? "" : `${texts.join("\n\n")}\n`);

export class Exposition {
  /** One entry per collector and view (which accounts, markets or not): /metrics and /probe don't evict each other. */
  readonly #chunks = new Map<string, Chunk>();
  readonly #bodies = new Map<string, { chunks: Chunk[]; body: Body }>();
  readonly #collectors: readonly Collector[];

  constructor(collectors: readonly Collector[] = COLLECTORS) {
    this.#collectors = collectors;
  }

  render(scrape: ScrapeResult, maxSeries: number): Rendered {
    const view = `${scrape.accounts.map((a) => a.account).join("\u0000")}|${scrape.markets === undefined ? "" : "m"}`;
    const fresh: string[] = [];
    const reused: Chunk[] = [];
    let series = 0;
    let duplicates = 0;
    this.#collectors.forEach((collector, i) => {
      const inputs = collector.inputs(scrape);
      const chunk = this.#chunk(collector, inputs, `${i}|${view}`, scrape);
      series += chunk.series;
      duplicates += chunk.duplicates;
      if (chunk.texts.length === 0) return;
      if (inputs === undefined) fresh.push(...chunk.texts);
      else reused.push(chunk);
    });
    if (series > maxSeries) {
      // Over the cap (rare): cut family by family, in collector order, nothing reused.
      const { families, dropped } = capSeries(dedupeSeries(collectFamilies(scrape)).families, maxSeries);
      return { fresh: renderText(families), reused: undefined, series: series - dropped, dropped, duplicates };
    }
    return { fresh: joined(fresh), reused: this.#body(view, reused), series, dropped: 0, duplicates };
  }

  #chunk(collector: Collector, inputs: readonly unknown[] | undefined, key: string, scrape: ScrapeResult): Chunk {
    const cached = this.#chunks.get(key);
    if (inputs !== undefined && cached !== undefined && sameList(inputs, cached.inputs)) return cached;
    const { families, duplicates } = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    const chunk: Chunk = {
      inputs: inputs ?? [],
      texts: families.map(renderFamily),
      series: families.reduce((n, f) => n + f.samples.length, 0),
      duplicates,
    };
    if (inputs !== undefined) this.#chunks.set(key, chunk);
    return chunk;
  }

  #body(view: string, chunks: Chunk[]): Body | undefined {
    if (chunks.length === 0) return undefined;
    const cached = this.#bodies.get(view);
    if (cached !== undefined && sameList(cached.chunks, chunks)) return cached.body;
    const body = new Body(joined(chunks.flatMap((c) => c.texts)));
    this.#bodies.set(view, { chunks, body });
    return body;
  }
}
