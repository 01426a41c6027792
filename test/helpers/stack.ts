// A simulated venue and an exporter pointed at it, both on 127.0.0.1 port 0, for end-to-end tests.

import { Writable } from "node:stream";
import { configFromEnv } from "../../src/config/env.js";
import type { Config } from "../../src/config/types.js";
import type { Exporter } from "../../src/exporter.js";
import type { RunningServer } from "../../src/http/server.js";
import { createLogger } from "../../src/log.js";
import { SelfMetrics } from "../../src/metrics/self.js";
import { startService } from "../../src/service.js";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator/server.js";

export const SIM_KEY = "sim-test-key";

export interface Stack {
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

export async function startStack(
  options: { venue?: SimulatorOptions; env?: Record<string, string>; configure?: (c: Config) => void } = {},
): Promise<Stack> {
  const venue = await startSimulator({ seed: 7, tickMs: 0, apiKey: SIM_KEY, ...options.venue });
  const config = configFromEnv({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: SIM_KEY,
    TRADING_COLLATERAL_IDS: "USDC,USDT",
    TRADING_ACCOUNT: "sim",
    TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    ...options.env,
  });
  options.configure?.(config);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const logger = createLogger("debug", sink);
  const service = await startService(config, logger, { self: new SelfMetrics({ defaultMetrics: false }) });
  const { exporter, server } = service;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers });
  return {
    venue,
    exporter,
    server,
    config,
    logs,
    get,
    async scrape() {
      const res = await get("/metrics");
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return res.text();
    },
    async venueJson(path: string) {
      const res = await fetch(new URL(path, venue.url), { headers: { "x-api-key": SIM_KEY } });
      return res.json() as Promise<unknown>;
    },
    async close() {
      await service.close(1000);
      await venue.close();
    },
  };
}
