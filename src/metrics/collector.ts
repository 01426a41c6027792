// The one shape every collector has: validated scrape data in, metric families out, no I/O.

import type { ScrapeResult } from "../collect/result.js";
import type { Family } from "./family.js";

export interface Collector {
  collect(scrape: ScrapeResult): Family[];
  /**
   * True for the health of the scrape itself (trading_up and its kin): always served whole and not
   * counted against scrape.max_series, since the up/down alerts read it and its size is bounded by
   * the accounts configured, not by the venue.
   */
  readonly uncapped?: true;
  /**
   * The one object this collector's families are made from alone, when it has one (the market list): while
   * a scrape brings the same object, the exposition serves the families and lines it made from it before.
   */
  madeFrom?(scrape: ScrapeResult): object | undefined;
}
