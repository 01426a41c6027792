// Probing an exporter's targets as Prometheus does: discovered through /sd, spread over the interval by a hash of
// each target, scraped with Prometheus's headers, and judged up as Prometheus and the exporter see it.

import { Agent, request } from "node:http";
import { gunzipSync } from "node:zlib";
import { cpuMs, rssMB, threadCpuMs } from "./measure.js";

/** What Prometheus 2.x and 3.x send: OpenMetrics first, the text format as a fallback. */
const PROMETHEUS_ACCEPT =
  "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
/** Prometheus's default scrape timeout. */
export const SCRAPE_TIMEOUT_SECONDS = 10;
export interface Answer {
  status: number | "timeout" | "error";
  ms: number;
  body: Buffer;
}

/** Keep-alive, as Prometheus's scrape client; at most as many connections as probes in flight. */
export const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One scrape as Prometheus makes it: its Accept, gzip, its timeout header (`timeoutSeconds`, its default 10 s or the
 * interval when shorter), abandoned at `giveUpSeconds`, the timeout unless told.
 */
export function scrape(url: URL, timeoutSeconds = SCRAPE_TIMEOUT_SECONDS, giveUpSeconds = timeoutSeconds): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: Answer["status"], body = Buffer.alloc(0)) => resolve({ status, ms: performance.now() - started, body });
    const headers = { accept: PROMETHEUS_ACCEPT, "accept-encoding": "gzip", "x-prometheus-scrape-timeout-seconds": String(timeoutSeconds) };
    request(url, { agent, headers, signal: AbortSignal.timeout(giveUpSeconds * 1000) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done(res.statusCode ?? 0, Buffer.concat(chunks)));
      res.on("error", () => done("timeout"));
    })
      .on("error", (error) => done(error.name === "AbortError" || error.name === "TimeoutError" ? "timeout" : "error"))
      .end();
  });
}

/** Prometheus offsets each target by a hash of its labels, spreading targets evenly over the interval: FNV-1a of the name does the same. */
export function offsetFraction(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return hash / 2 ** 32;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface IntervalFigures {
  probes: number;
  ok: number;
  /** Answers up as targetUp says. */
  up: number;
  unavailable: number;
  other: number;
  timeouts: number;
  latencies: number[];
  cpuMs: number;
  /** The main thread's and the other threads', read apart from cpuMs (ticks of 10 ms each: over a tiny run they need not add up to it). */
  mainThreadCpuMs: number;
  otherThreadsCpuMs: number;
  rssMB: number;
}

export async function discover(exporter: { url: string }): Promise<Array<{ name: string; url: URL }>> {
  const groups = (await (await fetch(new URL("/sd", exporter.url))).json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
  return groups.map((g) => ({
    name: g.labels.__param_target ?? "",
    url: new URL(`http://${g.targets[0]}${g.labels.__metrics_path__}?target=${encodeURIComponent(g.labels.__param_target ?? "")}`),
  }));
}

const texts = new WeakMap<Answer, string>();

/** The answer's exposition, unzipped once however often it is read. */
export function answerText(answer: Answer): string {
  let text = texts.get(answer);
  if (text === undefined) {
    text = gunzipSync(answer.body).toString("utf8");
    texts.set(answer, text);
  }
  return text;
}

/**
 * Up as Prometheus sees it (200) and as the exporter says it: trading_up 1 for an account, and for the
 * venue's market target (it has no trading_up) a successful read of the market list.
 */
export function targetUp(answer: Answer): boolean {
  if (answer.status !== 200) return false;
  const text = answerText(answer);
  return /^trading_up\{[^}]*\} 1$/m.test(text) || (!/^trading_up\{/m.test(text) && /^trading_scrape_success\{endpoint="markets"[^}]*\} 1$/m.test(text));
}

/**
 * Probes every target once per interval at its own offset, as Prometheus spreads them, for `intervals`
 * intervals; CPU and RSS of process `pid` per interval. `afterFirst` runs at the end of the first interval;
 * `timeoutSeconds` is the scrape timeout sent (10 s); `onAnswer` sees every answer, with its interval (from 0).
 */
export async function probeRounds(
  pid: number,
  targets: ReadonlyArray<{ name: string; url: URL }>,
  intervals: number,
  intervalMs: number,
  options: {
    afterFirst?: () => Promise<void>;
    timeoutSeconds?: number;
    onAnswer?: (target: { name: string }, interval: number, answer: Answer) => void;
  } = {},
): Promise<{ figures: IntervalFigures[]; last: Map<string, Answer> }> {
  const figures: IntervalFigures[] = Array.from({ length: intervals }, () => ({
    probes: 0,
    ok: 0,
    up: 0,
    unavailable: 0,
    other: 0,
    timeouts: 0,
    latencies: [],
    cpuMs: 0,
    mainThreadCpuMs: 0,
    otherThreadsCpuMs: 0,
    rssMB: 0,
  }));
  const last = new Map<string, Answer>();
  const start = performance.now();
  const boundaries = (async () => {
    let cpuBefore = cpuMs(pid);
    let threadsBefore = threadCpuMs(pid);
    for (let k = 0; k < intervals; k++) {
      await pause(start + (k + 1) * intervalMs - performance.now());
      const cpu = cpuMs(pid);
      const threads = threadCpuMs(pid);
      figures[k]!.cpuMs = cpu - cpuBefore;
      figures[k]!.mainThreadCpuMs = threads.main - threadsBefore.main;
      figures[k]!.otherThreadsCpuMs = threads.other - threadsBefore.other;
      figures[k]!.rssMB = rssMB(pid);
      cpuBefore = cpu;
      threadsBefore = threads;
      if (k === 0) await options.afterFirst?.();
    }
  })();
  const loops = targets.map(async (target) => {
    const offset = offsetFraction(target.name) * intervalMs;
    for (let k = 0; k < intervals; k++) {
      await pause(start + k * intervalMs + offset - performance.now());
      const answer = await scrape(target.url, options.timeoutSeconds);
      const f = figures[k]!;
      f.probes++;
      if (targetUp(answer)) f.up++;
      f.latencies.push(answer.ms);
      if (answer.status === 200) f.ok++;
      else if (answer.status === 503) f.unavailable++;
      else if (answer.status === "timeout") f.timeouts++;
      else f.other++;
      last.set(target.name, answer);
      options.onAnswer?.(target, k, answer);
    }
  });
  await Promise.all(loops);
  await boundaries;
  return { figures, last };
}

/** CPU per probe answered 200 over the intervals after the first (or the main thread's, or the other threads'). */
export function steadyCpuPerProbe(figures: readonly IntervalFigures[], of: "cpuMs" | "mainThreadCpuMs" | "otherThreadsCpuMs" = "cpuMs"): number {
  const steady = figures.slice(1);
  // Per answer of 200: a 503 costs next to nothing, and counting it would make a refusing side look cheap.
  return (
    steady.reduce((n, f) => n + f[of], 0) /
    Math.max(
      1,
      steady.reduce((n, f) => n + f.ok, 0),
    )
  );
}
