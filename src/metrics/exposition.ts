// One scrape's exposition: each collector's families, deduplicated, cut at the series cap, rendered as one text.

import type { ScrapeResult } from "../scrape/result.js";
import type { Collector } from "./collector.js";
import type { Family, Sample } from "./family.js";
import { renderFamily } from "./text-render.js";

/** An unambiguous key of a sample's labels: each value length-prefixed, an absent one as "-". */
function keyOf(labels: Sample["labels"]): string {
  let key = "";
  for (const value of labels) key += value === null ? "-" : `${value.length}:${value}`;
  return key;
}

/** Leaves one series per final label set in each family (two venue strings can still become one label): the first sample of a label set wins; a family without repeats is returned as the same object. */
export function dedupeSeries(families: readonly Family[]): { families: Family[]; duplicates: number } {
  let duplicates = 0;
  const out = families.map((family) => {
    if (family.unique === true) return family;
    const seen = new Set<string>();
    // A key already seen leaves the set's size as it was.
    const kept = family.samples.filter((sample) => seen.size < seen.add(keyOf(sample.labels)).size);
    duplicates += family.samples.length - kept.length;
    return kept.length === family.samples.length ? family : { ...family, samples: kept };
  });
  return { families: out, duplicates };
}

export function capSeries(families: readonly Family[], max: number): { families: Family[]; dropped: number } {
  const kept: Family[] = [];
  let room = max;
  let dropped = 0;
  for (const family of families) {
    if (family.samples.length <= room) {
      kept.push(family);
      room -= family.samples.length;
      continue;
    }
    dropped += family.samples.length - room;
    if (room > 0) kept.push({ ...family, samples: family.samples.slice(0, room) });
    room = 0;
  }
  return { families: kept, dropped };
}

export type Exposition = { text: string; series: number; dropped: number; duplicates: number };

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
