// Runs Debian's real Alertmanager (`prometheus-alertmanager`, upstream `alertmanager`) on a free 127.0.0.1 port with a given config.

import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findBinary, startServer } from "./server-process.js";

/** An alert as Alertmanager's API v2 lists it. */
export interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  status: { state: "active" | "suppressed" | "unprocessed"; inhibitedBy: string[]; silencedBy: string[] };
  fingerprint: string;
}

export interface RunningAlertmanager {
  url: string;
  /** "host:port", for Prometheus's alerting config. */
  address: string;
  logTail(): string;
  /** Every alert it holds, inhibited ones included. */
  alerts(): Promise<AmAlert[]>;
  stop(): Promise<void>;
}

/**
 * Starts Alertmanager with `configText` written as alertmanager.yml in a fresh folder, next to a copy of
 * `templatesDir` (as templates/), so the config's relative template glob finds the shipped templates.
 * Clustering is off; it is ready once /-/ready answers 200.
 */
export async function startAlertmanager(configText: string, templatesDir: string): Promise<RunningAlertmanager> {
  const binary = findBinary(["alertmanager", "prometheus-alertmanager"], "install it: apt-get install prometheus-alertmanager");
  const dir = await mkdtemp(join(tmpdir(), "trading-alertmanager-"));
  try {
    await writeFile(join(dir, "alertmanager.yml"), configText);
    await cp(templatesDir, join(dir, "templates"), { recursive: true });
    const server = await startServer(
      "alertmanager",
      binary,
      (port) => [
        `--config.file=${join(dir, "alertmanager.yml")}`,
        `--storage.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--cluster.listen-address=",
        "--log.level=info",
      ],
      dir,
    );
    let stopping: Promise<void> | undefined;
    return {
      url: server.url,
      address: new URL(server.url).host,
      logTail: server.logTail,
      async alerts() {
        const res = await fetch(`${server.url}/api/v2/alerts`, { signal: AbortSignal.timeout(10_000) });
        if (res.status !== 200) throw new Error(`alertmanager /api/v2/alerts answered ${res.status}`);
        return (await res.json()) as AmAlert[];
      },
      stop() {
        stopping ??= server.stop().finally(() => rm(dir, { recursive: true, force: true }));
        return stopping;
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
