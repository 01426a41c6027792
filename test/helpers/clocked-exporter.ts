// An exporter on a clock the test moves by hand, behind the real app, against the tiny venue: the rig of the tests
// of what a collection's start time decides (the minimum interval, the shared collection and its deadline).

import { Writable } from "node:stream";
import { configFromEnv } from "./env-config.js";
import { Exporter } from "../../src/scrape-answers.js";
import { createApp } from "../../src/http/app.js";
import type { RunningServer } from "../../src/http/server.js";
import { listen } from "./listen.js";
import { createLogger } from "../../src/log.js";
import { SelfMetrics } from "../../src/metrics/self.js";
import { startTinyVenue, type TinyVenue, type TinyVenueOptions } from "./tiny-venue.js";

/** Where the exporter's clock starts. */
export const START_MS = 1_700_000_000_000;

export interface ClockedExporter {
  venue: TinyVenue;
  exporter: Exporter;
  server: RunningServer;
  /** The exporter's clock: tests move it by hand. */
  clock: { now: number };
  /** The environment its configuration was read from, to reload with. */
  env: Record<string, string>;
  /** A GET with Prometheus's timeout header (seconds), or none. */
  get(path: string, timeoutHeader?: string): Promise<Response>;
  close(): Promise<void>;
}

/** Account "acct" with collateral USDC, the market list never cached by its own setting; `env` adds to or overrides that. */
export async function startClockedExporter(
  options: { env?: Record<string, string>; venue?: TinyVenueOptions; maxInFlight?: number; lines?: string[] } = {},
): Promise<ClockedExporter> {
  const venue = await startTinyVenue(options.venue ?? {});
  const env = {
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "key-one",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "acct",
    TRADING_MARKETS_CACHE_SECONDS: "0",
    TRADING_MAX_IN_FLIGHT_SCRAPES: String(options.maxInFlight ?? 100),
    ...options.env,
  };
  const clock = { now: START_MS };
  // `lines`, when given, receives every log line from warnings up.
  const sink = new Writable({
    write: (chunk: Buffer, _e, done) => {
      options.lines?.push(chunk.toString("utf8"));
      done();
    },
  });
  const logger = createLogger(options.lines === undefined ? "error" : "warn", sink);
  const exporter = new Exporter(configFromEnv(env), logger, new SelfMetrics({ defaultMetrics: false }), () => clock.now);
  const app = createApp({ exporter, logger, timeouts: { defaultTimeoutSeconds: 10, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 60 } });
  const server = await listen(app, "127.0.0.1", 0);
  const get = (path: string, timeoutHeader?: string) =>
    fetch(new URL(path, server.url), timeoutHeader === undefined ? {} : { headers: { "x-prometheus-scrape-timeout-seconds": timeoutHeader } });
  const close = async () => {
    await server.close(100);
    await exporter.close();
    await venue.close();
  };
  return { venue, exporter, server, clock, env, get, close };
}
