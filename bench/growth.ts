// Cost per scrape as the venue's work grows, on a moving venue: the exporter's CPU per scrape beside
// the bound's for the same answers, per unit (market, order) and per series.

import { Bound } from "./bound.js";
import { startExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile } from "./measure.js";
import { ACTIVE_LIMIT, BASE_ENV, HISTORY_LIMIT, KEY, fetchRaw, round2, seriesOf } from "./shared.js";
import { startSimulatorProcess } from "./simulator-process.js";

export interface Growth {
  label: string;
  unit: string;
  points: Array<{ size: number; series: number; cpuMs: number; boundCpuMs: number }>;
  /** Microseconds of exporter CPU per added unit, first step then second step. */
  perUnit: number[];
  lastStepVsLinear: number;
  microsecondsPerSeries: number | undefined;
}

const COLLATERALS = ["USDC", "USDT"];

function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * `fresh`: the market list is read, parsed and rendered every scrape (no market cache), since the
 * simulator's market list never moves; else the exporter's defaults.
 */
export async function growth(
  label: string,
  unit: string,
  sizes: [number, number, number],
  simArgs: (n: number) => string[],
  scrapes: (n: number) => number,
  fresh: boolean,
): Promise<Growth> {
  const points: Growth["points"] = [];
  for (const size of sizes) {
    const venue = await startSimulatorProcess([...simArgs(size), "--tick-ms", "0", "--api-key", KEY, "--moving"]);
    const exporter = await startExporterProcess({
      ...BASE_ENV,
      TRADING_BASE_URL: venue.url,
      TRADING_COLLATERAL_IDS: COLLATERALS.join(","),
      ...(fresh ? { TRADING_MARKETS_CACHE_SECONDS: "0" } : {}),
    });
    try {
      const bound = new Bound(
        { venue: venue.url, key: KEY, collaterals: COLLATERALS, activeLimit: ACTIVE_LIMIT, historyLimit: HISTORY_LIMIT },
        { marketsEveryScrape: fresh },
      );
      const url = new URL("metrics", exporter.url);
      const body = (await fetchRaw(url, { "accept-encoding": "identity" })).toString();
      for (let i = 0; i < 3; i++) {
        await fetchRaw(url);
        await bound.scrape();
      }
      // The median of three batches each: a major GC landing in one batch must not decide the slope.
      const n = scrapes(size);
      const exporterBatches: number[] = [];
      const boundBatches: number[] = [];
      for (let b = 0; b < 3; b++) {
        let before = cpuMs(exporter.pid);
        for (let i = 0; i < n; i++) await fetchRaw(url);
        exporterBatches.push((cpuMs(exporter.pid) - before) / n);
        before = ownCpuMs();
        for (let i = 0; i < n; i++) await bound.scrape();
        boundBatches.push((ownCpuMs() - before) / n);
      }
      points.push({ size, series: seriesOf(body), cpuMs: round2(percentile(exporterBatches, 50)), boundCpuMs: round2(percentile(boundBatches, 50)) });
    } finally {
      await exporter.close();
      await venue.close();
    }
  }
  const [a, b, c] = points as [Growth["points"][0], Growth["points"][0], Growth["points"][0]];
  const predicted = b.cpuMs + ((b.cpuMs - a.cpuMs) * (c.size - b.size)) / (b.size - a.size);
  return {
    label,
    unit,
    points,
    perUnit: [round2(((b.cpuMs - a.cpuMs) * 1000) / (b.size - a.size)), round2(((c.cpuMs - b.cpuMs) * 1000) / (c.size - b.size))],
    lastStepVsLinear: round2(c.cpuMs / predicted),
    microsecondsPerSeries: c.series > a.series ? round2(((c.cpuMs - a.cpuMs) * 1000) / (c.series - a.series)) : undefined,
  };
}
