// One scrape's exposition: each collector's families, deduplicated, cut at the series cap, rendered as one text.

import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "./collector.js";
import type { Family } from "./family.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderFamily } from "./text-render.js";

export interface Exposition {
  text: string;
  series: number;
  dropped: number;
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

/** Series each collector keeps under `maxSeries`: the lowest turn gives way first; one that never does takes no room. */
function shares(collectors: readonly Collector[], series: readonly number[], maxSeries: number): number[] {
  const served = collectors.flatMap((c, i) => (c.givesWay === "never" ? [] : [{ turn: c.givesWay, i }])).sort((a, b) => b.turn - a.turn || a.i - b.i);
  const kept = [...series];
  let room = maxSeries;
  for (const { i } of served) {
    kept[i] = Math.min(series[i]!, room);
    room -= kept[i]!;
  }
  return kept;
}

/** Over `maxSeries`, series give way in their collectors' turns; `kept` holds outputs made from an input of their own for its next scrape. */
export function expose(collectors: readonly Collector[], scrape: ScrapeResult, maxSeries: number, kept = new Map<Collector, CollectorOutput>()): Exposition {
  const built = collectors.map((collector) => outputOf(collector, scrape, kept));
  const sizes = built.map((output) => seriesOf(output.families));
  const room = shares(collectors, sizes, maxSeries);
  const lines: string[] = [];
  let series = 0;
  let dropped = 0;
  let duplicates = 0;
  for (const [i, output] of built.entries()) {
    duplicates += output.duplicates;
    let families = output.families;
    if (collectors[i]!.givesWay !== "never") {
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
