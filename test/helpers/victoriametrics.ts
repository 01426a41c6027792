// Runs Debian's VictoriaMetrics binaries (victoria-metrics, vmagent, vmalert) on free 127.0.0.1 ports, each in a fresh folder.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sample } from "./prometheus.js";
import { findBinary, startServer, type ServerProcess } from "./server-process.js";

const INSTALL = "install it: apt-get install victoria-metrics";

export interface RunningVm {
  url: string;
  /** The last lines it logged, for failure messages. */
  logTail(): string;
  stop(): Promise<void>;
}

export interface RunningVictoriaMetrics extends RunningVm {
  /** An instant query of its Prometheus-compatible API that must succeed: its samples. */
  series(expr: string): Promise<Sample[]>;
}

export interface VmTarget {
  labels: Record<string, string>;
  scrapeUrl: string;
  health: string;
}

export interface RunningVmagent extends RunningVm {
  /** The targets this member scrapes (its share of the cluster's). */
  activeTargets(): Promise<VmTarget[]>;
}

export interface VmAlert {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "pending" | "firing" | "inactive";
  /** When it went pending: a resolve and a new breach would change it. */
  activeAt: string;
}

export interface VmRule {
  name: string;
  lastEvaluation: string;
}

export interface RunningVmalert extends RunningVm {
  alerts(): Promise<VmAlert[]>;
  /** Every rule of every group, with the time of its last evaluation. */
  rules(): Promise<VmRule[]>;
}

export class VmApiError extends Error {
  override readonly name = "VmApiError";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url}: ${reason}`);
  }
}

async function getData<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status?: string; data?: T; error?: string };
  if (body.status !== "success" || body.data === undefined) throw new VmApiError(url, `${res.status} ${body.error ?? "no data"}`);
  return body.data;
}

/**
 * Starts `binary` with `args(port, dir)` in a fresh folder holding `files` (name to content), ready once
 * /-/ready answers 200; the folder goes when it stops.
 */
async function start(what: string, binary: string, args: (port: number, dir: string) => string[], files: Record<string, string> = {}): Promise<ServerProcess> {
  const path = findBinary([binary], INSTALL);
  const dir = await mkdtemp(join(tmpdir(), `trading-${binary}-`));
  try {
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    const server = await startServer(what, path, (port) => args(port, dir), dir);
    let stopping: Promise<void> | undefined;
    return {
      url: server.url,
      logTail: server.logTail,
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

/**
 * Single-node VictoriaMetrics. Queries see a sample as soon as it is stored (`-search.latencyOffset`
 * is 30 s by default, which would hold back every alert of a short test) and are never answered from
 * its cache.
 */
export async function startVictoriaMetrics(): Promise<RunningVictoriaMetrics> {
  const server = await start("victoria-metrics", "victoria-metrics", (port, dir) => [
    `-httpListenAddr=127.0.0.1:${port}`,
    `-storageDataPath=${join(dir, "data")}`,
    "-search.latencyOffset=1s",
    "-search.disableCache",
    "-loggerLevel=WARN",
  ]);
  return {
    ...server,
    async series(expr) {
      return (await getData<{ result: Sample[] }>(`${server.url}/api/v1/query?${new URLSearchParams({ query: expr })}`)).result;
    },
  };
}

export interface VmagentOptions {
  /** The scrape configuration (Prometheus's `scrape_configs` format). */
  config: string;
  /** VictoriaMetrics' base URL; samples go to its /api/v1/write. */
  remoteWrite: string;
  /** This member's number and the cluster's size (-promscrape.cluster.*). */
  member: number;
  members: number;
  /** Labels added to every sample it sends (-remoteWrite.label). */
  labels?: Record<string, string>;
  /** How often it reads http_sd_configs urls again. */
  sdCheckSeconds: number;
}

export async function startVmagent(options: VmagentOptions): Promise<RunningVmagent> {
  const server = await start(
    `vmagent member ${options.member}`,
    "vmagent",
    (port, dir) => [
      `-httpListenAddr=127.0.0.1:${port}`,
      `-promscrape.config=${join(dir, "scrape.yml")}`,
      `-promscrape.cluster.membersCount=${options.members}`,
      `-promscrape.cluster.memberNum=${options.member}`,
      `-promscrape.httpSDCheckInterval=${options.sdCheckSeconds}s`,
      `-remoteWrite.url=${options.remoteWrite}/api/v1/write`,
      `-remoteWrite.tmpDataPath=${join(dir, "remote-write")}`,
      ...Object.entries(options.labels ?? {}).map(([name, value]) => `-remoteWrite.label=${name}=${value}`),
      "-loggerLevel=WARN",
    ],
    { "scrape.yml": options.config },
  );
  return {
    ...server,
    activeTargets: async () => (await getData<{ activeTargets: VmTarget[] }>(`${server.url}/api/v1/targets?state=active`)).activeTargets,
  };
}

export interface VmalertOptions {
  rulesFile: string;
  /** VictoriaMetrics' base URL: queried, and written to (recording rules, alert state). */
  datasource: string;
  /** Alertmanager's base URL. */
  notifier: string;
  evaluationSeconds: number;
}

export async function startVmalert(options: VmalertOptions): Promise<RunningVmalert> {
  const server = await start("vmalert", "vmalert", (port) => [
    `-httpListenAddr=127.0.0.1:${port}`,
    `-rule=${options.rulesFile}`,
    `-datasource.url=${options.datasource}`,
    `-remoteWrite.url=${options.datasource}`,
    `-remoteRead.url=${options.datasource}`,
    `-notifier.url=${options.notifier}`,
    `-evaluationInterval=${options.evaluationSeconds}s`,
    "-loggerLevel=WARN",
  ]);
  return {
    ...server,
    alerts: async () => (await getData<{ alerts: VmAlert[] | null }>(`${server.url}/api/v1/alerts`)).alerts ?? [],
    rules: async () => (await getData<{ groups: { rules: VmRule[] }[] }>(`${server.url}/api/v1/rules`)).groups.flatMap((g) => g.rules),
  };
}
