// One scrape's exposition: each collector's families, repeats of a label set left out, cut at the
// series cap in the order collectors give way, rendered as one text in the collectors' order.

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

/** A collector's families for this scrape: the kept part while its source is the same, else made anew. */
function partOf(collector: Collector, scrape: ScrapeResult, parts: Map<Collector, RenderedPart>): RenderedPart {
  const source = collector.source?.(scrape);
  let part = source === undefined ? undefined : parts.get(collector);
  if (part === undefined || part.source !== source) {
    const deduped = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    part = { source, families: deduped.families, duplicates: deduped.duplicates };
    if (source !== undefined) parts.set(collector, part);
  }
  return part;
}

/**
 * How many series each collector keeps under `maxSeries`: the room goes first to the collectors not in
 * `giveWay`, in their order, then to those in it from its last to its first, so `giveWay[0]` gives way
 * first. An uncapped collector keeps all of its series and takes no room.
 */
function shares(collectors: readonly Collector[], series: readonly number[], maxSeries: number, giveWay: readonly Collector[]): number[] {
  const rank = (i: number) => {
    const at = giveWay.indexOf(collectors[i]!);
    return at === -1 ? giveWay.length : at;
  };
  const served = collectors.map((_, i) => i).sort((a, b) => rank(b) - rank(a) || a - b);
  const kept = [...series];
  let room = maxSeries;
  for (const i of served) {
    if (collectors[i]!.uncapped === true) continue;
    kept[i] = Math.min(series[i]!, room);
    room -= kept[i]!;
  }
  return kept;
}

/**
 * The collectors' families in order. Over `maxSeries`, series give way collector by collector in the
 * order of `giveWay` (shares above): within the collector the cap reaches, whole families are kept
 * while they fit, the family that crosses the cap is cut, and the rest are left out. The scrape's own
 * health (an `uncapped` collector, which the up/down alerts read) is always kept whole and not counted.
 * `parts` keeps the rendered families of each collector with a source, for the next scrape of the same source.
 */
export function expose(
  collectors: readonly Collector[],
  scrape: ScrapeResult,
  maxSeries: number,
  parts = new Map<Collector, RenderedPart>(),
  giveWay: readonly Collector[] = [],
): Exposition {
  const built = collectors.map((collector) => partOf(collector, scrape, parts));
  const room = shares(
    collectors,
    built.map((part) => seriesOf(part.families)),
    maxSeries,
    giveWay,
  );
  const lines: string[] = [];
  let series = 0;
  let dropped = 0;
  let duplicates = 0;
  for (const [i, part] of built.entries()) {
    duplicates += part.duplicates;
    let families = part.families;
    if (collectors[i]!.uncapped !== true) {
      const cut = capSeries(families, room[i]!);
      families = cut.dropped === 0 ? families : cut.families;
      dropped += cut.dropped;
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
