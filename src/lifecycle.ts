// The running exporter: scraper, HTTP app and server built from one config, reloaded and stopped as one.

import type express from "express";
import type { Logger } from "pino";
import { startupOnlyChanges } from "./config/settings.js";
import { type Config, routePrefix } from "./config/types.js";
import { Exporter } from "./scrape-answers.js";
import { createApp } from "./http/app.js";
import { type ListenOptions, type ListenTarget, listenAll, type RunningServers, takeSystemdSockets } from "./http/server.js";
import { SelfMetrics } from "./metrics/self.js";
import { Redactor } from "./util/redact.js";
import { libraryErrorText } from "./util/error-text.js";
import { ConfigError } from "./config/errors.js";
import { servedByOtherShard } from "./config/sharding.js";
import { authenticator } from "./venue/auth.js";

/** Every credential of `config` as the redactor must know it (its scheme's values and the extra headers' values), until released. */
function redactSecretsOf(redactor: Redactor, config: Config): () => void {
  const values: string[] = [];
  const shownNames = new Set(config.accounts.flatMap((a) => [a.name, ...a.collateralIds]));
  for (const account of config.accounts) {
    values.push(...authenticator(account.auth).secrets());
    // Any extra header may be a credential (a venue may sign with X-Desk), unless the configuration shows its value anyway.
    for (const value of Object.values(account.headers)) if (!shownNames.has(value)) values.push(value);
  }
  return redactor.hold(values);
}

/** `run` one at a time: the calls made while it runs are all served by one run after it (reading the files as they are then), and get its outcome. */
function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let running = Promise.resolve();
  let next: Promise<void> | undefined;
  return () =>
    (next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        running = run();
        return running;
      }));
}

export interface Service {
  exporter: Exporter;
  server: RunningServers;
  /** Re-reads the configuration and secret files; on a bad one the old one keeps serving. Only with a `source`. */
  reload?: () => Promise<void>;
  close(graceMs?: number): Promise<void>;
}

export interface ServiceOptions extends Pick<ListenOptions, "tls" | "onTlsServer"> {
  /** The process's one redactor, the logger's too; a new one when not given. */
  redactor?: Redactor;
  self?: SelfMetrics;
  source?: () => Config | Promise<Config>;
  /** Middleware before every route (the web config's); a function is given the self-metrics to count in. */
  guards?: express.RequestHandler[] | ((self: SelfMetrics) => express.RequestHandler[]);
}

export async function startService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Service> {
  const redactor = options.redactor ?? new Redactor();
  let releaseSecrets = redactSecretsOf(redactor, config);
  const self = options.self ?? new SelfMetrics({ defaultMetrics: !config.web.disableExporterMetrics });
  const exporter = new Exporter(config, logger, self, Date.now, redactor);
  const source = options.source;
  /** The configuration served now: the one a probe of another shard's account is told about. */
  let current = config;
  const reload = async (source: () => Config | Promise<Config>): Promise<void> => {
    try {
      const next = await source();
      const release = releaseSecrets;
      releaseSecrets = redactSecretsOf(redactor, next);
      // The old configuration's secrets are known until its last collection ends: a line about it is still redacted.
      void exporter.reload(next).then(release);
      current = next;
      exporter.self.configLoaded(true);
      logger.info({ accounts: next.accounts.map((a) => a.name) }, "configuration reloaded");
      const waiting = startupOnlyChanges(config, next);
      if (waiting.length > 0) logger.warn({ settings: waiting }, "these settings changed but are read at start-up only: restart to apply them");
    } catch (error) {
      exporter.self.configLoaded(false);
      const text = error instanceof ConfigError ? error.message : libraryErrorText(error, "unexpected failure");
      logger.warn({ error: text }, "configuration reload failed; the old one keeps serving");
      throw error;
    }
  };
  // A storm of POST /-/reload or SIGHUP costs one reload at a time, and at most one more after it.
  const reloadOnce = source === undefined ? undefined : oneAtATime(() => reload(source));
  const guards = typeof options.guards === "function" ? options.guards(exporter.self) : options.guards;
  const app = createApp({
    exporter,
    logger,
    timeouts: config.scrape,
    servedElsewhere: (name) => servedByOtherShard(current, name),
    telemetryPath: config.web.telemetryPath,
    routePrefix: routePrefix(config),
    externalUrl: config.externalUrl,
    ...(reloadOnce === undefined ? {} : { reload: reloadOnce }),
    ...(guards === undefined ? {} : { guards }),
  });
  const targets: ListenTarget[] = config.web.systemdSocket ? takeSystemdSockets(process.env, process.pid).map((fd) => ({ fd })) : config.listenAddresses;
  const server = await listenAll(app, targets, { ...config.web, tls: options.tls, onTlsServer: options.onTlsServer, events: exporter.self.connections });
  return {
    exporter,
    server,
    ...(reloadOnce === undefined ? {} : { reload: reloadOnce }),
    async close(graceMs = config.scrape.maxTimeoutSeconds * 1000) {
      await server.close(graceMs);
      await exporter.close();
    },
  };
}
