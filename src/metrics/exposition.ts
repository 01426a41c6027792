// Renders a scrape collector by collector. A collector whose inputs are the same objects as last
// time (the venue's bodies did not change) reuses its rendered part, and each part is encoded once
// for every scrape that serves it: a moving account re-encodes its own parts, not the market list.

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "./collector.js";
import type { Family } from "./family.js";
import { Body, Part } from "./body.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderBytes, renderWith } from "./text-render.js";

interface Chunk {
  inputs: readonly unknown[];
  /** The collector's non-empty families until the chunk is first sent; undefined once rendered. */
  families: Family[] | undefined;
  /** The families as text (after the first render); undefined when there are none. */
  part: Part | undefined;
  series: number;
  /** Series left out as repeats of a label set (dedupe-series.ts). */
  duplicates: number;
}

/**
 * The chunk's text, rendered at the first scrape that sends it: a chunk past the series cap is never
 * rendered or compressed. What changes every scrape is sent as text after the exporter's own metrics;
 * the rest is compressed straight from the render buffer, with no copy of its text.
 */
/** A chunk left out over the cap gives up its families, so a cache of them does not outlive the scrape: a miss. */
function released(chunk: Chunk): boolean {
  return chunk.families === undefined && chunk.part === undefined && chunk.series > 0;
}

function partOf(chunk: Chunk, fresh: boolean): Part | undefined {
  const families = chunk.families;
  if (families !== undefined) {
    chunk.part = families.length === 0 ? undefined : fresh ? new Part(renderBytes(families)) : renderWith(families, Part.gzipped);
    chunk.families = undefined;
  }
  return chunk.part;
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
    const chunks = this.#collectors.map((collector, i) => {
      const inputs = collector.inputs(scrape);
      return { collector, fresh: inputs === undefined, chunk: this.#chunk(collector, inputs, `${i}|${view}`, scrape) };
    });
    const series = chunks.reduce((n, c) => n + c.chunk.series, 0);
    const uncapped = chunks.reduce((n, c) => n + (c.collector.uncapped === true ? c.chunk.series : 0), 0);
    const duplicates = chunks.reduce((n, c) => n + c.chunk.duplicates, 0);
    if (series - uncapped > maxSeries) return this.#capped(scrape, chunks, maxSeries, series, duplicates);
    const fresh: Part[] = [];
    const reused: Chunk[] = [];
    for (const c of chunks) {
      const part = partOf(c.chunk, c.fresh);
      if (part === undefined) continue;
      if (c.fresh) fresh.push(part);
      else reused.push(c.chunk);
    }
    return { fresh: fresh.length === 0 ? "" : new Body(fresh).text, reused: this.#body(view, reused), series, dropped: 0, duplicates };
  }

  /**
   * Over the cap (a large /metrics): collector by collector in order, whole chunks while they fit, the one
   * that crosses the cap collected again and cut family by family, the rest left out unrendered. The
   * scrape's own health (trading_up) is always kept whole and not counted.
   */
  #capped(
    scrape: ScrapeResult,
    chunks: ReadonlyArray<{ collector: Collector; fresh: boolean; chunk: Chunk }>,
    max: number,
    series: number,
    duplicates: number,
  ): Rendered {
    let room = max;
    let dropped = 0;
    const fresh: Part[] = [];
    const kept: Part[] = [];
    for (const { collector, fresh: isFresh, chunk } of chunks) {
      let part: Part | undefined;
      if (collector.uncapped === true || chunk.series <= room) {
        if (collector.uncapped !== true) room -= chunk.series;
        part = partOf(chunk, isFresh);
      } else {
        dropped += chunk.series - room;
        if (room > 0) {
          // The chunk's own families when not rendered yet, else collected again.
          const whole = chunk.families ?? dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0)).families;
          part = new Part(renderBytes(capSeries(whole, room).families));
        }
        room = 0;
        // Not rendered whole: its families go with this scrape, and a later one collects it again.
        if (chunk.part === undefined) chunk.families = undefined;
      }
      if (part !== undefined) (isFresh ? fresh : kept).push(part);
    }
    return {
      fresh: fresh.length === 0 ? "" : new Body(fresh).text,
      reused: kept.length === 0 ? undefined : new Body(kept),
      series: series - dropped,
      dropped,
      duplicates,
    };
  }

  #chunk(collector: Collector, inputs: readonly unknown[] | undefined, key: string, scrape: ScrapeResult): Chunk {
    const cached = this.#chunks.get(key);
    if (inputs !== undefined && cached !== undefined && !released(cached) && sameList(inputs, cached.inputs)) return cached;
    // Another view may have rendered the same inputs (the market list, the same for every /metrics of
    // a fleet): by the inputs contract the text is the same, so it is rendered once.
    const latest = this.#latest.get(collector);
    if (inputs !== undefined && latest !== undefined && !released(latest) && sameList(inputs, latest.inputs)) {
      this.#chunks.set(key, latest);
      return latest;
    }
    const { families, duplicates } = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    const chunk: Chunk = {
      inputs: inputs ?? [],
      families,
      part: undefined,
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
