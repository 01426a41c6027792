// One server on one address, as the tests start them: the exporter's listenAll with a single target, the web.*
// settings at their defaults unless given.

import type express from "express";
import { SETTINGS } from "../../src/config/settings.js";
import { type ListenOptions, listenAll, type RunningServers } from "../../src/http/server.js";

export const WEB_DEFAULTS = {
  idleTimeoutSeconds: SETTINGS["web.idle_timeout_seconds"].default,
  readTimeoutSeconds: SETTINGS["web.read_timeout_seconds"].default,
  writeTimeoutSeconds: SETTINGS["web.write_timeout_seconds"].default,
  maxConnections: SETTINGS["web.max_connections"].default,
};

export function listen(app: express.Express, host: string, port: number, options: Partial<ListenOptions> = {}): Promise<RunningServers> {
  return listenAll(app, [{ host, port }], { ...WEB_DEFAULTS, ...options });
}
