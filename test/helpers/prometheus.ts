// Runs Debian's real `prometheus` binary on a free 127.0.0.1 port, scraping one target with the repo's rules.

import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RULES_FILE = fileURLToPath(new URL("../../prometheus/rules/trading.rules.yml", import.meta.url));

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const POLL_MS = 300;
const LOG_LINES_KEPT = 200;

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

export interface RunningPrometheus {
  url: string;
  /** The last lines Prometheus logged, for failure messages. */
  logTail(): string;
  /** An instant query at the current time; a PromQL error comes back as status "error", not a throw. */
  query(expr: string): Promise<QueryAnswer>;
  /** An instant query that must succeed: its samples. */
  series(expr: string): Promise<Sample[]>;
  alerts(): Promise<ActiveAlert[]>;
  /** The active targets, with their labels and health. */
  targets(): Promise<Array<{ labels: Record<string, string>; scrapePool: string; health: string; scrapeUrl: string; lastError: string }>>;
  ruleGroups(): Promise<RuleGroupStatus[]>;
  stop(): Promise<void>;
}

export class PrometheusMissingError extends Error {
  override readonly name = "PrometheusMissingError";
  constructor() {
    super("the `prometheus` binary is not on PATH; this end-to-end test needs a real Prometheus: install it: apt-get install prometheus");
  }
}

/** Absolute path of `prometheus` on PATH, or a PrometheusMissingError. */
export function findPrometheus(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "prometheus");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new PrometheusMissingError();
}

/** A port that was free a moment ago: bind port 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("could not read the bound port"))));
    });
  });
}

/** Polls `probe` every POLL_MS until it returns a value other than undefined; throws `describe()` after timeoutMs. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  describe: () => string = () => "",
): Promise<T> {
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

function configYaml(target: string, jobs: unknown[]): string {
  // JSON is YAML; it spares escaping the rules path.
  return JSON.stringify(
    {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [RULES_FILE],
      scrape_configs: [
        { job_name: "trading", scrape_interval: "1s", scrape_timeout: "1s", metrics_path: "/metrics", static_configs: [{ targets: [target] }] },
        ...jobs,
      ],
    },
    null,
    2,
  );
}

class StartError extends Error {
  override readonly name = "StartError";
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}

interface Child {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited(): boolean;
  log: string[];
}

function spawnPrometheus(binary: string, dir: string, port: number): Child {
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=info",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (log.length > LOG_LINES_KEPT) log.splice(0, log.length - LOG_LINES_KEPT);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let done = false;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      done = true;
      resolve();
    });
    child.once("error", (err) => {
      log.push(`spawn error: ${err.message}`);
      done = true;
      resolve();
    });
  });
  return { child, exited, hasExited: () => done, log };
}

async function stopChild(c: Child): Promise<void> {
  if (c.hasExited()) return;
  c.child.kill("SIGTERM");
  const graceful = await Promise.race([c.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref())]);
  if (!graceful && !c.hasExited()) {
    c.child.kill("SIGKILL");
    await c.exited;
  }
}

async function untilReady(c: Child, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (c.hasExited()) {
      const tail = c.log.slice(-20).join("\n");
      throw new StartError(`prometheus exited before it was ready:\n${tail}`, /address already in use/i.test(tail));
    }
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new StartError(`prometheus was not ready within ${READY_TIMEOUT_MS} ms:\n${c.log.slice(-20).join("\n")}`, false);
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data?: T; error?: string };
  if (body.status !== "success" || body.data === undefined) throw new Error(`${url}: ${res.status} ${body.error ?? JSON.stringify(body)}`);
  return body.data;
}

/**
 * Starts Prometheus scraping `target` ("host:port", path /metrics) every second with the repo's rules,
 * plus any further scrape `jobs` (as Prometheus config objects),
 * in a fresh temporary directory, and resolves once /-/ready answers 200. Retries once on a port taken
 * between choosing and binding it.
 */
export async function startPrometheus(target: string, options: { jobs?: unknown[] } = {}): Promise<RunningPrometheus> {
  const binary = findPrometheus();
  const dir = await mkdtemp(join(tmpdir(), "trading-prometheus-"));
  try {
    await writeFile(join(dir, "prometheus.yml"), configYaml(target, options.jobs ?? []));
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const c = spawnPrometheus(binary, dir, port);
      try {
        await untilReady(c, url);
      } catch (err) {
        await stopChild(c);
        if (err instanceof StartError && err.addressInUse && attempt === 1) continue;
        throw err;
      }
      return running(c, url, dir);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

function running(c: Child, url: string, dir: string): RunningPrometheus {
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
    logTail: () => c.log.slice(-20).join("\n"),
    query,
    async series(expr) {
      const answer = await query(expr);
      if (answer.status !== "success" || answer.data === undefined) throw new Error(`query ${expr} failed: ${answer.errorType}: ${answer.error}`);
      return answer.data.result;
    },
    alerts: async () => (await getJson<{ alerts: ActiveAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    targets: async () =>
      (
        await getJson<{ activeTargets: Array<{ labels: Record<string, string>; scrapePool: string; health: string; scrapeUrl: string; lastError: string }> }>(
          `${url}/api/v1/targets?state=active`,
        )
      ).activeTargets,
    ruleGroups: async () => (await getJson<{ groups: RuleGroupStatus[] }>(`${url}/api/v1/rules`)).groups,
    stop() {
      stopping ??= stopChild(c).finally(() => rm(dir, { recursive: true, force: true }));
      return stopping;
    },
  };
}
