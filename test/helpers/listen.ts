// One server on one address, as the tests start them: the exporter's listenAll with a single target, the web.*
// settings at their defaults unless given.

import type express from "express";
import { SETTINGS } from "../../src/config/settings.js";
import { type ListenOptions, listenAll, type RunningServers } from "../../src/http/server.js";

export const WEB_DEFAULTS = {
  idleTimeoutMs: SETTINGS["web.idle_timeout_seconds"].default * 1000,
  readTimeoutMs: SETTINGS["web.read_timeout_seconds"].default * 1000,
  writeTimeoutMs: SETTINGS["web.write_timeout_seconds"].default * 1000,
  maxConnections: SETTINGS["web.max_connections"].default,
};

export function listen(app: express.Express, host: string, port: number, options: Partial<ListenOptions> = {}): Promise<RunningServers> {
  return listenAll(app, [{ host, port }], { ...WEB_DEFAULTS, ...options });
}
