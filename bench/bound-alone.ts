// The floor, the bound, or the floor through the exporter's own pool, alone in its own process and
// scraped back to back (or at a pace), for the benchmark's memory figures: what a program doing only
// that work holds after as many scrapes as the exporter.
// code-floor is the floor in a process that has also loaded the exporter's code (every module the service
// imports, its libraries among them) without starting it: the least an exporter made of that code can hold;
// stack-floor loads only the libraries the product is made with (express, @prometheus-io/client, pino, ky, undici).
// `node bound-alone.js floor|bound|pool-floor|code-floor|stack-floor TARGET_JSON SCRAPES [INTERVAL_MS]` prints one JSON line
// (RSS after the last scrape and the most after any), then exits; INTERVAL_MS paces the scrapes.

import { Bound, type VenueTarget } from "./bound.js";

const MODES = ["floor", "bound", "pool-floor", "code-floor", "stack-floor"] as const;
export type AloneMode = (typeof MODES)[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const [mode, targetJson, scrapesText, intervalText = "0"] = process.argv.slice(2);
  const scrapes = Number(scrapesText);
  const intervalMs = Number(intervalText);
  if (
    !MODES.includes(mode as AloneMode) ||
    targetJson === undefined ||
    !Number.isInteger(scrapes) ||
    scrapes < 1 ||
    !Number.isInteger(intervalMs) ||
    intervalMs < 0
  ) {
    throw new Error("usage: bound-alone.js floor|bound|pool-floor|code-floor|stack-floor TARGET_JSON SCRAPES [INTERVAL_MS]");
  }
  if (mode === "code-floor") {
    // What main.js loads before it reads its configuration: the service (express, @prometheus-io/client, undici) and the logger (pino).
    await import("../src/lifecycle.js");
    await import("../src/log.js");
  }
  if (mode === "stack-floor") {
    for (const library of ["express", "@prometheus-io/client", "pino", "ky", "undici"]) await import(library);
  }
  const bound = new Bound(JSON.parse(targetJson) as VenueTarget, { client: mode === "pool-floor" ? "pool" : "fetch" });
  const rss = () => process.memoryUsage().rss / 2 ** 20;
  let max = 0;
  let next = performance.now();
  for (let i = 0; i < scrapes; i++) {
    await (mode === "bound" ? bound.scrape() : bound.fetch());
    max = Math.max(max, rss());
    if (intervalMs > 0) {
      next += intervalMs;
      await sleep(Math.max(0, next - performance.now()));
    }
  }
  const last = rss();
  process.stdout.write(`${JSON.stringify({ rssMB: last, maxRssMB: Math.max(max, last) })}\n`);
  await bound.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`bound-alone: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
