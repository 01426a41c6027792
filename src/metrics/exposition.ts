// One scrape's exposition: each collector's families, repeats of a label set left out, cut at the
// series cap, rendered as one text.

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "./collector.js";
import type { Family } from "./family.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderFamily } from "./text-render.js";

export interface Exposition {
  /** The families as Prometheus text ending in a newline, or "" when there are none. */
  text: string;
  series: number;
  /** Series left out over the cap. */
  dropped: number;
  /** Series left out as repeats of a label set in their family. */
  duplicates: number;
}

/** A collector's families as rendered from its source (Collector.source), one family's lines after another's. */
export interface RenderedPart {
  /** Undefined for a collector without one: its part serves this scrape only. */
  source: object | undefined;
  families: Family[];
  lines?: string[];
  duplicates: number;
}

const seriesOf = (families: readonly Family[]): number => families.reduce((n, f) => n + f.samples.length, 0);

/**
 * The collectors' families in order. Over `maxSeries`, the collectors keep whole families while they
 * fit, the family that crosses the cap is cut, and the rest are left out; the scrape's own health
 * (an `uncapped` collector, which the up/down alerts read) is always kept whole and not counted.
 * `parts` keeps the rendered families of each collector with a source, for the next scrape of the same source.
 */
export function expose(collectors: readonly Collector[], scrape: ScrapeResult, maxSeries: number, parts = new Map<Collector, RenderedPart>()): Exposition {
  const lines: string[] = [];
  let room = maxSeries;
  let series = 0;
  let dropped = 0;
  let duplicates = 0;
  for (const collector of collectors) {
    const source = collector.source?.(scrape);
    let part = source === undefined ? undefined : parts.get(collector);
    if (part === undefined || part.source !== source) {
      const deduped = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
      part = { source, families: deduped.families, duplicates: deduped.duplicates };
      if (source !== undefined) parts.set(collector, part);
    }
    duplicates += part.duplicates;
    let families = part.families;
    if (collector.uncapped !== true) {
      const cut = capSeries(families, room);
      families = cut.dropped === 0 ? families : cut.families;
      dropped += cut.dropped;
      room -= seriesOf(families);
    }
    series += seriesOf(families);
    if (families !== part.families) lines.push(...families.map(renderFamily));
    else {
      part.lines ??= families.map(renderFamily);
      lines.push(...part.lines);
    }
  }
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, series, dropped, duplicates };
}
