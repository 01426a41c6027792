// The one signature every collector has: validated scrape data in, metric families out, no I/O.

import type { ScrapeResult } from "../collect/result.js";
import type { Family } from "../metrics/family.js";

export type Collector = (scrape: ScrapeResult) => Family[];
