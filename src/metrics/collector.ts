// The one shape every collector has: validated scrape data in, metric families out, no I/O.

import type { ScrapeResult } from "../scrape/result.js";
import type { Family } from "./family.js";

export interface Collector {
  collect(scrape: ScrapeResult): Family[];
  /** The scrape's own health (trading_up): never cut by scrape.max_series, since alerts read it and the accounts bound it. */
  readonly uncapped?: true;
  /** The one object the families are made from alone (the market list): while it is the same, the last output is served. */
  madeFrom?(scrape: ScrapeResult): object | undefined;
}
