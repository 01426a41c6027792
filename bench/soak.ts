// `npm run soak`: 10,000 scrapes against the simulated venue with faults switching on and off.
// Prints RSS and heap after warm-up and at the end, and the handles left open. Not a test: numbers.

import { Writable } from "node:stream";
import { buildConfig } from "../src/config/load.js";
import { createLogger } from "../src/log.js";
import { startService } from "../src/lifecycle.js";
import type { FaultSpec } from "../tools/simulator/server.js";
import { startSimulatorProcess } from "./simulator-process.js";

const SCRAPES = Number(process.env.SOAK_SCRAPES ?? 10_000);
const CONCURRENCY = 4;
const PHASE = 250;

const FAULTS: Array<FaultSpec[]> = [
  [],
  [{ endpoint: "orders_active", kind: "status", status: 500 }],
  [{ endpoint: "account_info", kind: "malformed_json" }],
  [{ endpoint: "orders_history", kind: "reset" }],
  [{ endpoint: "markets", kind: "truncated_json" }],
  [{ endpoint: "*", kind: "wrong_types" }],
  [{ endpoint: "orders_active", kind: "status", status: 429, retryAfter: "1" }],
  [{ endpoint: "account_info", kind: "gzip_bomb", bytes: 11 * 1024 * 1024 }],
  [{ endpoint: "*", kind: "latency", latencyMs: 3 }],
  [{ endpoint: "*", kind: "missing_fields" }],
];

function memory(): { rssMB: number; heapMB: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMB: m.rss / 2 ** 20, heapMB: m.heapUsed / 2 ** 20 };
}

async function soak(): Promise<void> {
  // The venue runs in its own process, so the figures below are the exporter's alone.
  const venue = await startSimulatorProcess(["--api-key", "soak", "--tick-ms", "0", "--seed", "3"]);
  const config = buildConfig(
    {
      env: {
        TRADING_BASE_URL: venue.url,
        TRADING_API_KEY: "soak",
        TRADING_COLLATERAL_IDS: "USDC,USDT",
        TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
        TRADING_MARKETS_CACHE_SECONDS: "1",
      },
    },
    undefined,
  ).config;
  const service = await startService(config, createLogger("warn", new Writable({ write: (_c, _e, done) => done() })));
  const url = new URL("metrics", service.server.url);
  const handlesBefore = process.getActiveResourcesInfo().length;
  // Warm-up is one full cycle of the faults: every code path and buffer size has been used once.
  const warmup = Math.min(PHASE * FAULTS.length, Math.floor(SCRAPES / 4));
  let done = 0;
  let failures = 0;
  let start = memory();
  const started = performance.now();
  const worker = async () => {
    while (done < SCRAPES) {
      const n = done++;
      if (n % PHASE === 0) {
        await venue.setFaults(FAULTS[(n / PHASE) % FAULTS.length]!);
        await venue.tick();
      }
      if (n === warmup) start = memory();
      const res = await fetch(url);
      await res.text();
      if (res.status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  const end = memory();
  await service.close(1000);
  await venue.close();
  // Closed sockets leave the handle list on the next turns of the event loop.
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  const growth = (end.rssMB - start.rssMB) / start.rssMB;
  const heapGrowth = (end.heapMB - start.heapMB) / start.heapMB;
  const lines = [
    `runtime           Node ${process.version} (the image runs 24 LTS)`,
    `scrapes           ${SCRAPES} (${CONCURRENCY} at a time, faults switching every ${PHASE}), ${(SCRAPES / seconds).toFixed(0)}/s`,
    `non-200 answers   ${failures}`,
    `after warm-up     rss ${start.rssMB.toFixed(1)} MB, heap ${start.heapMB.toFixed(1)} MB (at scrape ${warmup}, one cycle of faults)`,
    `at the end        rss ${end.rssMB.toFixed(1)} MB, heap ${end.heapMB.toFixed(1)} MB`,
    `growth            rss ${(growth * 100).toFixed(1)} %, heap ${(heapGrowth * 100).toFixed(1)} % (target: under 10 %)`,
    `open handles      ${handlesBefore} while serving, ${process.getActiveResourcesInfo().length} after closing (${process.getActiveResourcesInfo().join(", ") || "none"})`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (failures > 0 || growth > 0.1) process.exitCode = 1;
}

soak().catch((error: unknown) => {
  process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
