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

/** One collector's families for a scrape, and their lines once rendered; kept while its input (Collector.madeFrom) is the same. */
export interface CollectorOutput {
  /** Undefined for a collector without one: the output serves this scrape only. */
  madeFrom: object | undefined;
  families: Family[];
  lines?: string[];
  duplicates: number;
}

const seriesOf = (families: readonly Family[]): number => families.reduce((n, f) => n + f.samples.length, 0);

/** A collector's output for this scrape: the kept one while its input is the same, else made anew. */
function outputOf(collector: Collector, scrape: ScrapeResult, kept: Map<Collector, CollectorOutput>): CollectorOutput {
  const madeFrom = collector.madeFrom?.(scrape);
  let output = madeFrom === undefined ? undefined : kept.get(collector);
  if (output === undefined || output.madeFrom !== madeFrom) {
    const deduped = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    output = { madeFrom, families: deduped.families, duplicates: deduped.duplicates };
    if (madeFrom !== undefined) kept.set(collector, output);
  }
  return output;
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
 * `kept` holds the output of each collector with an input of its own (Collector.madeFrom), for the next scrape of the same input.
 */
export function expose(
  collectors: readonly Collector[],
  scrape: ScrapeResult,
  maxSeries: number,
  kept = new Map<Collector, CollectorOutput>(),
  giveWay: readonly Collector[] = [],
): Exposition {
  const built = collectors.map((collector) => outputOf(collector, scrape, kept));
  const room = shares(
    collectors,
    built.map((output) => seriesOf(output.families)),
    maxSeries,
    giveWay,
  );
  const lines: string[] = [];
  let series = 0;
  let dropped = 0;
  let duplicates = 0;
  for (const [i, output] of built.entries()) {
    duplicates += output.duplicates;
    let families = output.families;
    if (collectors[i]!.uncapped !== true) {
      const cut = capSeries(families, room[i]!);
      families = cut.dropped === 0 ? families : cut.families;
      dropped += cut.dropped;
    }
    series += seriesOf(families);
    if (families !== output.families) lines.push(...families.map(renderFamily));
    else {
      output.lines ??= families.map(renderFamily);
      lines.push(...output.lines);
    }
  }
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, series, dropped, duplicates };
}
