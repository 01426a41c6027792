// The floor, the bound, or the floor through the exporter's own pool, alone in its own process and
// scraped back to back, for the benchmark's memory column: what a program doing only that work
// holds after as many scrapes as the exporter.
// `node bound-alone.js floor|bound|pool-floor TARGET_JSON SCRAPES` prints one JSON line, then exits.

import { Bound, type VenueTarget } from "./bound.js";

const MODES = ["floor", "bound", "pool-floor"] as const;
export type AloneMode = (typeof MODES)[number];

async function main(): Promise<void> {
  const [mode, targetJson, scrapesText] = process.argv.slice(2);
  const scrapes = Number(scrapesText);
  if (!MODES.includes(mode as AloneMode) || targetJson === undefined || !Number.isInteger(scrapes) || scrapes < 1) {
    throw new Error("usage: bound-alone.js floor|bound|pool-floor TARGET_JSON SCRAPES");
  }
  const bound = new Bound(JSON.parse(targetJson) as VenueTarget, { client: mode === "pool-floor" ? "pool" : "fetch" });
  for (let i = 0; i < scrapes; i++) await (mode === "bound" ? bound.scrape() : bound.fetch());
  process.stdout.write(`${JSON.stringify({ rssMB: process.memoryUsage().rss / 2 ** 20 })}\n`);
  await bound.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`bound-alone: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
