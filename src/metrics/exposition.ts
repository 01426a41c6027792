// One scrape's exposition: each collector's families, repeats of a label set left out, cut at the
// series cap, rendered as one text.

import type { ScrapeResult } from "../collect/result.js";
import type { Collector } from "./collector.js";
import type { Family } from "./family.js";
import { dedupeSeries } from "./dedupe-series.js";
import { capSeries } from "./series-cap.js";
import { renderText } from "./text-render.js";

export interface Exposition {
  /** The families as Prometheus text ending in a newline, or "" when there are none. */
  text: string;
  series: number;
  /** Series left out over the cap. */
  dropped: number;
  /** Series left out as repeats of a label set in their family. */
  duplicates: number;
}

const seriesOf = (families: readonly Family[]): number => families.reduce((n, f) => n + f.samples.length, 0);

/**
 * The collectors' families in order. Over `maxSeries`, the collectors keep whole families while they
 * fit, the family that crosses the cap is cut, and the rest are left out; the scrape's own health
 * (an `uncapped` collector, which the up/down alerts read) is always kept whole and not counted.
 */
export function expose(collectors: readonly Collector[], scrape: ScrapeResult, maxSeries: number): Exposition {
  const kept: Family[] = [];
  let room = maxSeries;
  let dropped = 0;
  let duplicates = 0;
  for (const collector of collectors) {
    const deduped = dedupeSeries(collector.collect(scrape).filter((f) => f.samples.length > 0));
    duplicates += deduped.duplicates;
    let families = deduped.families;
    if (collector.uncapped !== true) {
      const cut = capSeries(families, room);
      families = cut.families;
      dropped += cut.dropped;
      room -= seriesOf(families);
    }
    kept.push(...families);
  }
  return { text: kept.length === 0 ? "" : renderText(kept), series: seriesOf(kept), dropped, duplicates };
}
