// A simulated venue and an exporter pointed at it, both on 127.0.0.1 port 0, for end-to-end tests.

import { Writable } from "node:stream";
import { Agent, fetch as poolFetch } from "undici";
import { configFromEnv } from "./env-config.js";
import { configFromObject } from "./config-files.js";
import type { Config } from "../../src/config/types.js";
import type { Exporter } from "../../src/scrape-answers.js";
import type { RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { SelfMetrics } from "../../src/metrics/self.js";
import { startService } from "../../src/lifecycle.js";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../tools/simulator/server.js";

export const SIM_KEY = "sim-test-key";

/**
 * The stack's tests change the venue and expect the next scrape to see it, so each scrape collects
 * (the minimum collection interval has tests of its own); `env` can set the interval back.
 */
const EVERY_SCRAPE_COLLECTS = { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" };

/**
 * The environment of the default stack's exporter: account "sim" on the simulator at `venueUrl`,
 * port 0, and every scrape collecting (see EVERY_SCRAPE_COLLECTS).
 */
export function simEnv(venueUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TRADING_BASE_URL: venueUrl,
    TRADING_API_KEY: SIM_KEY,
    TRADING_COLLATERAL_IDS: "USDC,USDT",
    TRADING_ACCOUNT: "sim",
    TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    ...EVERY_SCRAPE_COLLECTS,
    ...extra,
  };
}

export interface Stack {
  /** POST /-/reload (when a source was given). */
  reload(): Promise<Response>;
  venue: RunningSimulator;
  exporter: Exporter;
  server: RunningServer;
  config: Config;
  /** Every log line the exporter wrote. */
  logs: string[];
  /** GET a path of the exporter. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** GET /metrics and return its body. */
  scrape(): Promise<string>;
  /** GET a venue path directly, with the key, and parse the JSON. */
  venueJson(path: string): Promise<unknown>;
  close(): Promise<void>;
}

export interface StackOptions {
  venue?: SimulatorOptions;
  env?: Record<string, string>;
  /** A config file's content (as parsed YAML) instead of the environment; gets the venue's URL. */
  file?: (venueUrl: string) => unknown;
  /** Where reloads read the config from; enables POST /-/reload. Gets the venue's URL. */
  source?: (venueUrl: string) => Config;
  /** Logs below this level are not kept. */
  logLevel?: string;
  /** Middleware before every route (basic auth, headers), as a web config adds. */
  guards?: import("express").RequestHandler[];
  /** the Prometheus client's process and Node.js metrics on /metrics (off by default: they vary). */
  defaultMetrics?: boolean;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const venue = await startSimulator({ seed: 7, tickMs: 0, apiKey: SIM_KEY, ...options.venue });
  const config =
    options.source !== undefined
      ? options.source(venue.url)
      : options.file !== undefined
        ? configFromObject(options.file(venue.url), { TRADING_LISTEN_ADDRESS: "127.0.0.1:0", ...EVERY_SCRAPE_COLLECTS, ...options.env }, process.cwd())
        : configFromEnv(simEnv(venue.url, options.env));
  // Tests never take a fixed port: a config that would (the file's default 0.0.0.0:9842) is a test bug.
  const fixed = config.listenAddresses.find((a) => a.port !== 0);
  if (fixed !== undefined) throw new Error(`a test stack must listen on port 0, not ${fixed.port}`);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const logger = createLogger(options.logLevel ?? "debug", sink);
  const source = options.source;
  const service = await startService(config, logger, {
    self: new SelfMetrics({ defaultMetrics: options.defaultMetrics ?? false }),
    ...(options.guards === undefined ? {} : { guards: options.guards }),
    ...(source === undefined ? {} : { source: () => source(venue.url) }),
  });
  const { exporter, server } = service;
  // A client pool of this stack's own: a later stack can get the same port, and must not be sent a
  // request on a keep-alive socket this one's server has already closed.
  const client = new Agent();
  // undici's own fetch: from undici 8 on, its Agent speaks a handler API Node's built-in fetch does not.
  const request = (url: URL, init: RequestInit = {}) =>
    poolFetch(url, { ...init, dispatcher: client } as Parameters<typeof poolFetch>[1]) as unknown as Promise<Response>;
  const get = (path: string, headers: Record<string, string> = {}) => request(new URL(path, server.url), { headers });
  return {
    venue,
    exporter,
    server,
    config,
    logs,
    get,
    reload: () => request(new URL("/-/reload", server.url), { method: "POST" }),
    async scrape() {
      const res = await get("/metrics");
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return res.text();
    },
    async venueJson(path: string) {
      const res = await request(new URL(path, venue.url), { headers: { "x-api-key": SIM_KEY } });
      return res.json() as Promise<unknown>;
    },
    async close() {
      await service.close(1000);
      await venue.close();
      await client.close();
    },
  };
}
