// The running exporter: scraper, HTTP app and server built from one config, and stopped as one.

import type { Logger } from "pino";
import type { Config } from "./config/types.js";
import { Exporter } from "./exporter.js";
import { createApp } from "./http/app.js";
import { listen, type RunningServer } from "./http/server.js";
import type { SelfMetrics } from "./metrics/self.js";

export interface Service {
  exporter: Exporter;
  server: RunningServer;
  /** Stops accepting, lets in-flight scrapes finish within `graceMs`, closes the venue connections. */
  close(graceMs?: number): Promise<void>;
}

export async function startService(config: Config, logger: Logger, self?: SelfMetrics): Promise<Service> {
  const exporter = new Exporter(config, logger, self);
  const app = createApp({
    exporter,
    logger,
    timeouts: {
      defaultSeconds: config.scrape.defaultTimeoutSeconds,
      offsetSeconds: config.scrape.timeoutOffsetSeconds,
      maxSeconds: config.scrape.maxTimeoutSeconds,
    },
    maxInFlight: config.scrape.maxInFlight,
  });
  const server = await listen(app, config.listenAddress.host, config.listenAddress.port);
  return {
    exporter,
    server,
    async close(graceMs = config.scrape.maxTimeoutSeconds * 1000) {
      await server.close(graceMs);
      await exporter.close();
    },
  };
}
