// The exporter's resident size at a pace a Prometheus server could scrape it (one scrape a second,
// denser than the usual 15-60 s), on the moving large profile, with the naive peer scraped at the
// same ticks and the floor and the bound alone at the same pace: the figure to size a container by.
// The headline's figure is read after back-to-back scrapes, which leave V8 no idle time in which
// to shrink its heap.

import { aloneRssMB } from "./bound-alone-process.js";
import { startLargeVenue } from "./large-venue.js";
import { rssMB } from "./measure.js";
import { fetchRaw, round1 } from "./shared.js";

export interface Paced {
  scrapes: number;
  intervalMs: number;
  exporter: Memory;
  peer: Memory;
  /** The floor and the bound alone, each in its own process with the exporter's runtime settings. */
  floor: Memory;
  bound: Memory;
}

/** RSS in MB after the last scrape, and the most seen after any scrape. */
interface Memory {
  rssMB: number;
  maxRssMB: number;
}

const rounded = (m: Memory): Memory => ({ rssMB: round1(m.rssMB), maxRssMB: round1(m.maxRssMB) });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function paced(scrapes: number, intervalMs: number): Promise<Paced> {
  const { target, exporter, peer, close } = await startLargeVenue(true);
  const stop = new AbortController();
  const alone = Promise.all([aloneRssMB("floor", target, scrapes, intervalMs, stop.signal), aloneRssMB("bound", target, scrapes, intervalMs, stop.signal)]);
  alone.catch(() => undefined); // awaited below on success; stopped in finally otherwise
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
    const [e, p] = contenders.map((c) => {
      const last = rssMB(c.pid);
      return rounded({ rssMB: last, maxRssMB: Math.max(c.max, last) });
    });
    const [floor, bound] = await alone;
    return { scrapes, intervalMs, exporter: e!, peer: p!, floor: rounded(floor), bound: rounded(bound) };
  } finally {
    stop.abort();
    await close();
  }
}
