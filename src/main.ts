#!/usr/bin/env node
// The trading-exporter command: reads its configuration, serves /metrics, stops cleanly on signals.

import { configFromEnv } from "./config/env.js";
import { ConfigError } from "./config/errors.js";
import { Exporter } from "./exporter.js";
import { createApp } from "./http/app.js";
import { listen } from "./http/server.js";
import { createLogger } from "./log.js";
import { VERSION } from "./version.js";

const USAGE = `usage: trading-exporter [--help] [--version]
Configured from TRADING_* environment variables; see the README.`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (argv.includes("--version")) {
    process.stdout.write(`trading-exporter ${VERSION} (node ${process.version})\n`);
    return 0;
  }
  const config = configFromEnv(process.env);
  const logger = createLogger(config.logLevel);
  const exporter = new Exporter(config, logger);
  const app = createApp({
    exporter,
    logger,
    timeouts: { defaultSeconds: config.scrape.defaultTimeoutSeconds, offsetSeconds: 0.5, maxSeconds: 120 },
  });
  const running = await listen(app, config.listenAddress.host, config.listenAddress.port);
  logger.info({ url: running.url, accounts: exporter.accountNames(), version: VERSION }, "listening");

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, "stopping");
      void running.close().then(resolve);
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? `configuration error: ${error.message}` : `fatal: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`trading-exporter: ${message}\n`);
    process.exit(1);
  },
);
