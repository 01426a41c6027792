// `BENCH_BASE=DIR npm run bench:ab`: this build's exporter against another build's (DIR, its dist folder)
// on the large moving venue, in the same run. Four exporters are started base, this, this, base and scraped
// in turn, and each build's figure is the mean of its two: of two exporters started one after the other,
// the second runs faster whatever it runs, which a plain pair would credit to the change.
// A benchmark, not a test: it measures.

import { benchNodeArgs, startExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile, rssMB } from "./measure.js";
import { COLLATERALS, largeVenueArgs } from "./large-venue.js";
import { agent, BASE_ENV, fetchRaw, positiveInteger, round2, table } from "./shared.js";
import { startSimulatorProcess } from "./simulator-process.js";
const THIS = new URL("../../dist", import.meta.url).pathname;
const WARM_SCRAPES = 10;

interface Figures {
  p50: number;
  cpuMs: number;
  rssMB: number;
}

async function main(): Promise<void> {
  const base = process.env.BENCH_BASE;
  if (base === undefined || base === "") throw new Error("BENCH_BASE: the dist folder of the build to compare with");
  const scrapes = positiveInteger("BENCH_AB_SCRAPES", 100);
  const rounds = positiveInteger("BENCH_AB_ROUNDS", 3);
  const venue = await startSimulatorProcess(largeVenueArgs(true));
  const env = { ...BASE_ENV, TRADING_BASE_URL: venue.url, TRADING_COLLATERAL_IDS: COLLATERALS.join(",") };
  const builds = [base, THIS, THIS, base];
  const exporters = [];
  try {
    // Each build with the flags of its own shebang.
    for (const dist of builds) exporters.push(await startExporterProcess(env, benchNodeArgs(), `${dist}/main.js`));
    const urls = exporters.map((e) => new URL("metrics", e.url));
    for (let i = 0; i < WARM_SCRAPES; i++) for (const url of urls) await fetchRaw(url);
    console.log(`Large profile, moving venue: this build (${THIS}) against ${base}, ${rounds} rounds of ${scrapes} scrapes each`);
    const rows: string[][] = [["round", "p50 ms base/this/this/base", "this/base p50", "this/base cpu", "this/base rss"]];
    const ratios: Figures[] = [];
    for (let round = 1; round <= rounds; round++) {
      const latencies = exporters.map(() => [] as number[]);
      const cpu = exporters.map(() => 0);
      for (let i = 0; i < scrapes; i++) {
        for (let k = 0; k < exporters.length; k++) {
          const j = (i + k) % exporters.length;
          const before = cpuMs(exporters[j]!.pid);
          const started = performance.now();
          await fetchRaw(urls[j]!);
          latencies[j]!.push(performance.now() - started);
          cpu[j]! += cpuMs(exporters[j]!.pid) - before;
        }
      }
      const figures: Figures[] = exporters.map((e, j) => ({ p50: percentile(latencies[j]!, 50), cpuMs: cpu[j]! / scrapes, rssMB: rssMB(e.pid) }));
      const ratio = (k: keyof Figures) => round2((figures[1]![k] + figures[2]![k]) / (figures[0]![k] + figures[3]![k]));
      ratios.push({ p50: ratio("p50"), cpuMs: ratio("cpuMs"), rssMB: ratio("rssMB") });
      rows.push([String(round), figures.map((f) => Math.round(f.p50)).join("/"), `${ratio("p50")}x`, `${ratio("cpuMs")}x`, `${ratio("rssMB")}x`]);
    }
    const median = (k: keyof Figures) =>
      percentile(
        ratios.map((r) => r[k]),
        50,
      );
    rows.push(["median", "", `${median("p50")}x`, `${median("cpuMs")}x`, `${median("rssMB")}x`]);
    console.log(table(rows));
  } finally {
    for (const e of exporters) await e.close();
    await venue.close();
    agent.destroy();
  }
}

await main();
