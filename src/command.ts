// The exporter's command once the Node.js release is known good: flags, configuration, serving, reload on SIGHUP, clean stop on signals.

import { parseCommandLine, usage } from "./cli/flags.js";
import { ConfigError } from "./config/errors.js";
import { loadConfig } from "./config/load.js";
import { shardLines } from "./config/sharding.js";
import { routePrefix } from "./config/types.js";
import { createLogger, stderrSink, type LogSink } from "./log.js";
import { ListenError, SystemdSocketError } from "./http/server.js";
import { startService } from "./lifecycle.js";
import { secretHeaderNames } from "./venue/auth.js";
import { VERSION, versionText } from "./version.js";
import { libraryErrorText } from "./util/error-text.js";
import { Redactor } from "./util/redact.js";
import type { SelfMetrics } from "./metrics/self.js";

let sink: LogSink | undefined;

async function main(argv: string[]): Promise<number> {
  const flags = parseCommandLine(argv);
  // A flag refused is reported with every problem of the configuration (below), unless nothing else is to be read.
  if (flags.problems.length > 0 && (flags.help || flags.version)) throw new ConfigError(flags.problems);
  if (flags.help || flags.version) {
    process.stdout.write(`${flags.help ? usage() : versionText()}\n`);
    return 0;
  }
  const load = (serving: boolean) => loadConfig({ flags: flags.flags, env: process.env }, serving);
  const { config, warnings } = await load(false).catch((error: unknown) => {
    throw error instanceof ConfigError ? new ConfigError([...flags.problems, ...error.problems]) : error;
  });
  if (flags.problems.length > 0) throw new ConfigError(flags.problems);
  // TLS and basic auth (zod, bcryptjs) are loaded only when a web config asks for them.
  const web = config.webConfigFile === undefined ? undefined : (await import("./http/toolkit/web-config.js")).loadWebConfig(config.webConfigFile);
  if (flags.configCheck) {
    for (const warning of warnings) process.stderr.write(`trading-exporter: warning: ${warning}\n`);
    const lines = [`configuration OK: ${config.accounts.length} account(s): ${config.accounts.map((a) => a.name).join(", ")}`, ...shardLines(config)];
    // Written before exit: process.exit drops what a pipe has not taken yet (a long list of shards).
    await new Promise((resolve) => process.stdout.write(lines.map((line) => `${line}\n`).join(""), resolve));
    return 0;
  }
  // A sink that never blocks: a closed or stalled stderr drops log lines, never a scrape or the stop.
  const redactor = new Redactor();
  sink = stderrSink(redactor);
  const logger = createLogger(config.logLevel, sink, secretHeaderNames(config.accounts), config.logFormat, redactor);
  for (const warning of warnings) logger.warn({ problem: warning }, "configuration warning");
  const source = async () => {
    const next = await load(true);
    for (const warning of next.warnings) logger.warn({ problem: warning }, "configuration warning");
    return next.config;
  };
  // An error nobody caught is a bug after which no state can be trusted: exit, as Node does, for the supervisor to restart.
  process.on("unhandledRejection", (reason) => {
    logger.error({ error: libraryErrorText(reason, "unexpected failure") }, "unhandled rejection: exiting");
    void exit(1);
  });
  process.on("uncaughtException", (error) => {
    logger.error({ error: libraryErrorText(error, "unexpected failure") }, "uncaught exception: exiting");
    void exit(1);
  });
  const webGuards = web === undefined ? undefined : (await import("./http/toolkit/guards.js")).webGuards;
  const guards = (self: SelfMetrics) => (web === undefined || webGuards === undefined ? [] : webGuards(web, self.guards));
  // Read again here: the certificate files may have changed since the web config was checked.
  const tls = web?.tls === undefined ? undefined : (await import("./http/toolkit/tls-serving.js")).tlsServing(web.tls, logger);
  if (web?.http2 === true) logger.info("http_server_config.http2 is accepted, but Express serves HTTP/1.1 only: ALPN settles on it with HTTP/2 clients");
  const service = await startService(config, logger, { redactor, source, guards, tls: tls?.options, onTlsServer: tls?.attach });
  // Start-up's garbage (the config read, every account's client built) handed back before the first scrape: idle RSS
  // at 1,000 accounts 145 -> 94 MB. `gc` is there with --expose-gc, which every shipped way of starting it passes;
  // "last-resort" is V8's collection that also returns the emptied pages to the system.
  (globalThis as { gc?: (options: object) => void }).gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
  const { shard, totalShards } = config.sharding;
  // Each listener's root under the route prefix: the status page an operator opens.
  const prefix = routePrefix(config);
  const root = (url: string) => (prefix === "/" ? url : `${url}${prefix.slice(1)}/`);
  logger.info(
    { url: root(service.server.url), urls: service.server.urls.map(root), accounts: service.exporter.accountNames(), shard, totalShards, version: VERSION },
    "listening",
  );
  process.on("SIGHUP", () => void service.reload?.().catch(() => undefined)); // a failure is logged and counted by reload itself

  const signal = await new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  logger.info({ signal }, "stopping: finishing in-flight scrapes");
  const graceMs = config.scrape.maxTimeoutSeconds * 1000;
  setTimeout(() => {
    logger.error("stop took too long; exiting");
    void exit(1);
  }, graceMs + 10_000).unref();
  await service.close(graceMs);
  logger.info("stopped");
  return 0;
}

function listenSetting(): string {
  const flagGiven = parseCommandLine(process.argv.slice(2)).flags["web.listen-address"] !== undefined;
  return !flagGiven && process.env.TRADING_LISTEN_ADDRESS !== undefined ? "TRADING_LISTEN_ADDRESS" : "--web.listen-address";
}

/** Exits once the last log lines are out, or after 1 s if the log's reader is slow or gone. */
async function exit(code: number): Promise<never> {
  await sink?.flush(1_000);
  process.exit(code);
}

function startFailure(error: unknown): string[] {
  if (error instanceof ConfigError) return error.problems.map((problem) => `configuration error: ${problem}`);
  if (error instanceof ListenError) return [error.line(listenSetting())];
  if (error instanceof SystemdSocketError) return [error.message];
  return [`${libraryErrorText(error, "could not start: unexpected error")}; please report it with the output of --version and the command line`];
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  process.stderr.write(startFailure(error).reduce((text, line) => `${text}trading-exporter: ${line}\n`, ""));
  process.exit(1);
});
