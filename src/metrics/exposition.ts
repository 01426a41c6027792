// Renders a scrape collector by collector. A collector whose inputs are the same objects as last
// time (the venue's bodies did not change) reuses its rendered part, and each part is encoded once
// for every scrape that serves it: a moving account re-encodes its own parts, not the market list.

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "./collector.js";
import { Body, Part } from "./body.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderBytes, renderText, renderWith } from "./text-render.js";

interface Chunk {
  inputs: readonly unknown[];
  /** The collector's non-empty families as text; undefined when it has none. */
  part: Part | undefined;
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

export class Exposition {
  /** One entry per collector and view (which accounts, markets or not): /metrics and /probe don't evict each other. */
  readonly #chunks = new Map<string, Chunk>();
  readonly #bodies = new Map<string, { chunks: Chunk[]; body: Body }>();
  /** Each collector's last rendered chunk, whatever its view. */
  readonly #latest = new Map<Collector, Chunk>();
  readonly #collectors: readonly Collector[];

  /** `collectors` is the list the exposition is made of, in order (collectors/index.ts's COLLECTORS). */
  constructor(collectors: readonly Collector[]) {
    this.#collectors = collectors;
  }

  render(scrape: ScrapeResult, maxSeries: number): Rendered {
    const view = `${scrape.accounts.map((a) => a.account).join("\u0000")}|${scrape.marketFamilies ? "m" : ""}`;
    const fresh: Part[] = [];
    const reused: Chunk[] = [];
    let series = 0;
    let uncapped = 0;
    let duplicates = 0;
    this.#collectors.forEach((collector, i) => {
      const inputs = collector.inputs(scrape);
      const chunk = this.#chunk(collector, inputs, `${i}|${view}`, scrape);
      series += chunk.series;
      if (collector.uncapped === true) uncapped += chunk.series;
      duplicates += chunk.duplicates;
      if (chunk.part === undefined) return;
      if (inputs === undefined) fresh.push(chunk.part);
      else reused.push(chunk);
    });
    if (series - uncapped > maxSeries) {
      // Over the cap (rare): cut family by family, in collector order, nothing reused; the scrape's
      // own health (trading_up) is always kept whole and not counted.
      const collected = (c: Collector) => dedupeSeries(c.collect(scrape).filter((f) => f.samples.length > 0)).families;
      const whole = this.#collectors.filter((c) => c.uncapped === true).flatMap(collected);
      const { families, dropped } = capSeries(this.#collectors.filter((c) => c.uncapped !== true).flatMap(collected), maxSeries);
      const kept = [...whole, ...families];
      return { fresh: kept.length === 0 ? "" : renderText(kept), reused: undefined, series: series - dropped, dropped, duplicates };
    }
    return { fresh: fresh.length === 0 ? "" : new Body(fresh).text, reused: this.#body(view, reused), series, dropped: 0, duplicates };
  }

  #chunk(collector: Collector, inputs: readonly unknown[] | undefined, key: string, scrape: ScrapeResult): Chunk {
    const cached = this.#chunks.get(key);
    if (inputs !== undefined && cached !== undefined && sameList(inputs, cached.inputs)) return cached;
    // Another view may have rendered the same inputs (the market list, the same for every account's
    // probe): by the inputs contract the text is the same, so a thousand probes render it once.
    const latest = this.#latest.get(collector);
    if (inputs !== undefined && latest !== undefined && sameList(inputs, latest.inputs)) {
      this.#chunks.set(key, latest);
      return latest;
    }
    const { families, duplicates } = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    // What changes every scrape is sent as text after the exporter's own metrics; the rest is
    // compressed straight from the render buffer, with no copy of its text.
    const render = () => (inputs === undefined ? new Part(renderBytes(families)) : renderWith(families, Part.gzipped));
    const chunk: Chunk = {
      inputs: inputs ?? [],
      part: families.length === 0 ? undefined : render(),
      series: families.reduce((n, f) => n + f.samples.length, 0),
      duplicates,
    };
    if (inputs !== undefined) {
      this.#chunks.set(key, chunk);
      this.#latest.set(collector, chunk);
    }
    return chunk;
  }

  #body(view: string, chunks: Chunk[]): Body | undefined {
    if (chunks.length === 0) return undefined;
    const cached = this.#bodies.get(view);
    if (cached !== undefined && sameList(cached.chunks, chunks)) return cached.body;
    const body = new Body(chunks.map((c) => c.part!));
    this.#bodies.set(view, { chunks, body });
    return body;
  }
}
