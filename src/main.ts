#!/usr/bin/env -S node --max-semi-space-size=2
// The trading-exporter command: flags, configuration, serving, reload on SIGHUP, clean stop on signals.
// The V8 flag above (also in `npm start` and the image's NODE_OPTIONS) keeps the young generation at
// 2 MiB instead of 16: a scrape's garbage is mostly venue bodies and text, and the large profile's
// RSS drops from ~200 MB to ~110 MB for about 5-10 ms more CPU per scrape (see the README).

import { parseFlags, usage, type Flags } from "./cli/flags.js";
import { ConfigError } from "./config/errors.js";
import { loadConfig } from "./config/load.js";
import { checkRequestValues } from "./config/secret.js";
import { createLogger, stderrSink, type LogSink } from "./log.js";
import { startService } from "./service.js";
import { VERSION } from "./version.js";
import { libraryErrorText } from "./util/error-text.js";
import type { WebConfig } from "./web/web-config.js";

/** The log sink, once there is one: flushed (briefly) before exit. */
let sink: LogSink | undefined;

async function main(argv: string[]): Promise<number> {
  const flags: Flags = parseFlags(argv, process.env);
  if (flags.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (flags.version) {
    process.stdout.write(`trading-exporter ${VERSION} (node ${process.version})\n`);
    return 0;
  }
  // Start-up, --config.check and every reload read through here: all refuse a header value with a line break.
  const source = async () => checkRequestValues(await loadConfig(flags, process.env));
  const config = await source();
  // TLS and basic auth (zod, bcryptjs) are loaded only when a web config asks for them.
  const webModule = flags.webConfigFile === undefined ? undefined : await import("./web/web-config.js");
  const web: WebConfig | undefined = webModule?.loadWebConfig(flags.webConfigFile!);
  const tls = web === undefined ? undefined : webModule?.tlsServerOptions(web);
  if (flags.configCheck) {
    process.stdout.write(`configuration OK: ${config.accounts.length} account(s): ${config.accounts.map((a) => a.name).join(", ")}\n`);
    return 0;
  }
  // A sink that never blocks: a closed or stalled stderr drops log lines, never a scrape or the stop.
  sink = stderrSink(flags.logFormat);
  const logger = createLogger(config.logLevel, sink);
  // One failing request or stray promise must not take the exporter down: log it and serve on.
  process.on("unhandledRejection", (reason) => {
    logger.error({ error: libraryErrorText(reason, "unexpected failure") }, "unhandled rejection");
  });
  process.on("uncaughtException", (error) => {
    logger.error({ error: libraryErrorText(error, "unexpected failure") }, "uncaught exception");
  });
  const guards =
    web === undefined
      ? []
      : [(await import("./web/server.js")).responseHeaders(web.headers), (await import("./web/basic-auth.js")).basicAuth(web.basicAuthUsers)];
  const service = await startService(config, logger, { source, guards, tls });
  logger.info({ url: service.server.url, accounts: service.exporter.accountNames(), version: VERSION }, "listening");
  process.on("SIGHUP", () => {
    service.reload().catch(() => undefined); // logged and counted by reload itself
  });

  const signal = await new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  logger.info({ signal }, "stopping: finishing in-flight scrapes");
  // Bounded whatever happens: in-flight scrapes get their longest deadline, the pool 5 s more.
  const graceMs = config.scrape.maxTimeoutSeconds * 1000;
  setTimeout(() => {
    logger.error("stop took too long; exiting");
    void exit(1);
  }, graceMs + 10_000).unref();
  await service.close(graceMs);
  logger.info("stopped");
  return 0;
}

/** Exits once the last log lines are out, or after 1 s if the log's reader is slow or gone. */
async function exit(code: number): Promise<never> {
  await sink?.flush(1_000);
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => exit(code),
  (error: unknown) => {
    const message =
      error instanceof ConfigError
        ? `configuration error: ${error.message}`
        : `fatal: ${libraryErrorText(error, "could not start")}`;
    process.stderr.write(`trading-exporter: ${message}\n`);
    process.exit(1);
  },
);
