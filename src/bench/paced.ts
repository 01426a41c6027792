// The exporter's resident size at a pace a Prometheus server could scrape it (one scrape a second,
// denser than the usual 15-60 s), on the moving large profile, with the naive peer scraped at the
// same ticks: the figure to size a container by. The headline's figure is read after back-to-back
// scrapes, which leave V8 no idle time in which to shrink its heap.

import { startExporterProcess } from "./exporter-process.js";
import { rssMB } from "./measure.js";
import { startPeerProcess } from "./peer-process.js";
import { ACTIVE_LIMIT, BASE_ENV, HISTORY_LIMIT, KEY, fetchRaw, round1 } from "./shared.js";
import { startSimulatorProcess } from "./simulator-process.js";

const COLLATERALS = ["USDC", "USDT", "BTC"];

export interface Paced {
  scrapes: number;
  intervalMs: number;
  /** RSS in MB after the last scrape, and the most seen after any scrape. */
  exporter: { rssMB: number; maxRssMB: number };
  peer: { rssMB: number; maxRssMB: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function paced(scrapes: number, intervalMs: number): Promise<Paced> {
  const venue = await startSimulatorProcess(["--profile", "large", "--tick-ms", "0", "--api-key", KEY, "--moving"]);
  const exporter = await startExporterProcess({ ...BASE_ENV, TRADING_BASE_URL: venue.url, TRADING_COLLATERAL_IDS: COLLATERALS.join(",") });
  const peer = await startPeerProcess({
    PEER_VENUE: venue.url,
    PEER_KEY: KEY,
    PEER_COLLATERALS: COLLATERALS.join(","),
    PEER_ACTIVE_LIMIT: String(ACTIVE_LIMIT),
    PEER_HISTORY_LIMIT: String(HISTORY_LIMIT),
  });
  try {
    const contenders = [
      { url: new URL("metrics", exporter.url), pid: exporter.pid, max: 0 },
      { url: new URL("metrics", peer.url), pid: peer.pid, max: 0 },
    ];
    let next = performance.now();
    for (let i = 0; i < scrapes; i++) {
      for (const c of contenders) {
        await fetchRaw(c.url);
        c.max = Math.max(c.max, rssMB(c.pid));
      }
      next += intervalMs;
      await sleep(Math.max(0, next - performance.now()));
    }
    const [e, p] = contenders.map((c) => ({ rssMB: round1(rssMB(c.pid)), maxRssMB: round1(c.max) }));
    return { scrapes, intervalMs, exporter: e!, peer: p! };
  } finally {
    await peer.close();
    await exporter.close();
    await venue.close();
  }
}
