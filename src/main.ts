#!/usr/bin/env node
// The trading-exporter command: reads its configuration, serves /metrics, stops cleanly on signals.

import { configFromEnv } from "./config/env.js";
import { ConfigError } from "./config/errors.js";
import { createLogger } from "./log.js";
import { startService } from "./service.js";
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
  // One failing request or stray promise must not take the exporter down: log it and serve on.
  process.on("unhandledRejection", (reason) => {
    logger.error({ error: reason instanceof Error ? reason.message : String(reason) }, "unhandled rejection");
  });
  process.on("uncaughtException", (error) => {
    logger.error({ error: error.message }, "uncaught exception");
  });
  const service = await startService(config, logger);
  logger.info({ url: service.server.url, accounts: service.exporter.accountNames(), version: VERSION }, "listening");

  const signal = await new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  logger.info({ signal }, "stopping: finishing in-flight scrapes");
  await service.close();
  logger.info("stopped");
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof ConfigError
        ? `configuration error: ${error.message}`
        : `fatal: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`trading-exporter: ${message}\n`);
    process.exit(1);
  },
);
