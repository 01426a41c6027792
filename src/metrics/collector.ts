// The one shape every collector has: validated scrape data in, metric families out, no I/O.

import type { ScrapeResult } from "../scrape/result.js";
import type { Family } from "./family.js";

export interface Collector {
  collect(scrape: ScrapeResult): Family[];
  /** Over scrape.max_series, series give way from turn 1 up (docs/metrics.md); "never": the scrape's health and thresholds, which alerts read and the accounts bound. */
  readonly givesWay: number | "never";
  /** The one object the families are made from alone (the market list): while it is the same, the last output is served. */
  madeFrom?(scrape: ScrapeResult): object | undefined;
}
