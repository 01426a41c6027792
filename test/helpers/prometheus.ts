// Runs Debian's real `prometheus` binary on a free 127.0.0.1 port, scraping one target with the repo's rules.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findBinary, startServer, type ServerProcess } from "./server-process.js";

export { freePort } from "./server-process.js";

export const RULES_FILE = fileURLToPath(new URL("../../prometheus/rules/trading.rules.yml", import.meta.url));

const POLL_MS = 300;

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface QueryAnswer {
  status: "success" | "error";
  data?: { resultType: string; result: Sample[] };
  errorType?: string;
  error?: string;
}

export interface RangeAnswer {
  status: "success" | "error";
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
  errorType?: string;
  error?: string;
}

export interface ActiveAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
  value: string;
}

export interface RuleStatus {
  name: string;
  type: "recording" | "alerting";
  query: string;
  health: "ok" | "err" | "unknown";
  lastError?: string;
  state?: "inactive" | "pending" | "firing";
  lastEvaluation: string;
}

export interface RuleGroupStatus {
  name: string;
  file: string;
  rules: RuleStatus[];
}

export interface ActiveTarget {
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
  health: string;
  lastError: string;
}

export interface RunningPrometheus {
  url: string;
  /** The last lines Prometheus logged, for failure messages. */
  logTail(): string;
  /** An instant query at the current time; a PromQL error comes back as status "error", not a throw. */
  query(expr: string): Promise<QueryAnswer>;
  /** A range query over the last `seconds` at `stepSeconds`; a PromQL error comes back as status "error". */
  queryRange(expr: string, seconds: number, stepSeconds: number): Promise<RangeAnswer>;
  /** The values of `label` on the series `selector` matches (what Grafana's label_values() lists). */
  labelValues(selector: string, label: string): Promise<string[]>;
  /** An instant query that must succeed: its samples. */
  series(expr: string): Promise<Sample[]>;
  alerts(): Promise<ActiveAlert[]>;
  /** The active targets, with their labels and health. */
  targets(): Promise<ActiveTarget[]>;
  ruleGroups(): Promise<RuleGroupStatus[]>;
  stop(): Promise<void>;
}

/** Absolute path of `prometheus` on PATH. */
export function findPrometheus(): string {
  return findBinary(["prometheus"], "install it: apt-get install prometheus");
}

/** Polls `probe` every POLL_MS until it returns a value other than undefined; throws `describe()` after timeoutMs. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, describe: () => string = () => ""): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const detail = [describe(), lastError === undefined ? "" : `last error: ${String(lastError)}`].filter(Boolean).join("\n");
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${detail}` : ""}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export interface PrometheusOptions {
  /** Rule file to load instead of the shipped one (e.g. a copy with shorter `for`s). */
  rulesFile?: string;
  /** "host:port" of an Alertmanager to send alerts to. */
  alertmanager?: string;
  /** Scrape and evaluation interval; 1 s unless given. */
  intervalSeconds?: number;
  /** Further scrape jobs, as Prometheus config objects. */
  jobs?: unknown[];
  /** The job `trading` scraping the target's /metrics; true unless given (false: only `jobs`). */
  metricsJob?: boolean;
  /** A whole configuration file's text instead of the one made from the options above (the target is then unused). */
  config?: string;
}

function configYaml(target: string, options: PrometheusOptions): string {
  const interval = `${options.intervalSeconds ?? 1}s`;
  const timeout = `${Math.min(options.intervalSeconds ?? 1, 10)}s`;
  // JSON is YAML; it spares escaping the rules path.
  return JSON.stringify(
    {
      global: { scrape_interval: interval, evaluation_interval: interval },
      rule_files: [options.rulesFile ?? RULES_FILE],
      ...(options.alertmanager === undefined ? {} : { alerting: { alertmanagers: [{ static_configs: [{ targets: [options.alertmanager] }] }] } }),
      scrape_configs: [
        ...(options.metricsJob === false
          ? []
          : [{ job_name: "trading", scrape_interval: interval, scrape_timeout: timeout, metrics_path: "/metrics", static_configs: [{ targets: [target] }] }]),
        ...(options.jobs ?? []),
      ],
    },
    null,
    2,
  );
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data?: T; error?: string };
  if (body.status !== "success" || body.data === undefined) throw new Error(`${url}: ${res.status} ${body.error ?? JSON.stringify(body)}`);
  return body.data;
}

/**
 * Starts Prometheus scraping `target` ("host:port", path /metrics) every second with the repo's rules
 * (or `options.rulesFile`), sending alerts to `options.alertmanager` if given,
 * in a fresh temporary directory, and resolves once /-/ready answers 200. Retries once on a port taken
 * between choosing and binding it.
 */
export async function startPrometheus(target: string, options: PrometheusOptions = {}): Promise<RunningPrometheus> {
  const binary = findPrometheus();
  const dir = await mkdtemp(join(tmpdir(), "trading-prometheus-"));
  try {
    await writeFile(join(dir, "prometheus.yml"), options.config ?? configYaml(target, options));
    const server = await startServer(
      "prometheus",
      binary,
      (port) => [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=info",
      ],
      dir,
    );
    return running(server, dir);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

function running(server: ServerProcess, dir: string): RunningPrometheus {
  const url = server.url;
  let stopping: Promise<void> | undefined;
  const query = async (expr: string): Promise<QueryAnswer> => {
    const res = await fetch(`${url}/api/v1/query`, {
      method: "POST",
      body: new URLSearchParams({ query: expr }),
      signal: AbortSignal.timeout(10_000),
    });
    return (await res.json()) as QueryAnswer;
  };
  return {
    url,
    logTail: server.logTail,
    query,
    async series(expr) {
      const answer = await query(expr);
      if (answer.status !== "success" || answer.data === undefined) throw new Error(`query ${expr} failed: ${answer.errorType}: ${answer.error}`);
      return answer.data.result;
    },
    async queryRange(expr, seconds, stepSeconds) {
      const end = Date.now() / 1000;
      const res = await fetch(`${url}/api/v1/query_range`, {
        method: "POST",
        body: new URLSearchParams({ query: expr, start: String(end - seconds), end: String(end), step: String(stepSeconds) }),
        signal: AbortSignal.timeout(10_000),
      });
      return (await res.json()) as RangeAnswer;
    },
    labelValues: async (selector, label) =>
      getJson<string[]>(`${url}/api/v1/label/${encodeURIComponent(label)}/values?${new URLSearchParams({ "match[]": selector })}`),
    alerts: async () => (await getJson<{ alerts: ActiveAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    targets: async () => (await getJson<{ activeTargets: ActiveTarget[] }>(`${url}/api/v1/targets?state=active`)).activeTargets,
    ruleGroups: async () => (await getJson<{ groups: RuleGroupStatus[] }>(`${url}/api/v1/rules`)).groups,
    stop() {
      stopping ??= server.stop().finally(() => rm(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}

/** Waits until Prometheus has scraped the exporter's `trading` job once (up == 1). */
export function scrapedOnce(prom: RunningPrometheus): Promise<true> {
  return waitFor(
    "the exporter scraped (up == 1)",
    async () => ((await prom.series('up{job="trading"} == 1')).length === 1 ? true : undefined),
    30_000,
    () => prom.logTail(),
  );
}
