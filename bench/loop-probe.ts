// Preloaded into the exporter by the benchmark (node --import): event-loop delay, reported and
// reset on SIGUSR2 as one JSON line on stderr. Not part of the exporter itself.

import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
process.on("SIGUSR2", () => {
  const ms = (ns: number) => ns / 1e6;
  process.stderr.write(`${JSON.stringify({ loopDelay: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) } })}\n`);
  histogram.reset();
});
