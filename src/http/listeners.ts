// One app served on several listeners (each listen address, or each socket systemd passed), stopped as one.

import type express from "express";
import { type ListenOptions, type ListenTarget, listenOn, type RunningServer } from "./server.js";

export interface RunningServers extends RunningServer {
  /** Every server, in the order of its target; `server` and `url` are the first one's. */
  servers: RunningServer[];
  urls: string[];
}

/** Listens on every target; if one fails, the ones already listening are closed and the error is thrown. */
export async function listenAll(app: express.Express, targets: readonly ListenTarget[], options: ListenOptions = {}): Promise<RunningServers> {
  const servers: RunningServer[] = [];
  try {
    for (const target of targets) servers.push(await listenOn(app, target, options));
  } catch (error) {
    await Promise.all(servers.map((s) => s.close(0)));
    throw error;
  }
  const first = servers[0];
  if (first === undefined) throw new Error("nothing to listen on");
  return {
    server: first.server,
    url: first.url,
    servers,
    urls: servers.map((s) => s.url),
    close: async (graceMs) => {
      await Promise.all(servers.map((s) => s.close(graceMs)));
    },
  };
}
