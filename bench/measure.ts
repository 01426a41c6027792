// Small measuring helpers of the benchmark: percentiles, a child's CPU time and RSS from /proc.

import { readdirSync, readFileSync } from "node:fs";

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux this runs on. */
const TICKS = 100;

/** User plus system CPU milliseconds of a /proc stat file: a process's, or one of its threads'. */
function statCpuMs(path: string): number {
  const stat = readFileSync(path, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** User plus system CPU milliseconds a process has used so far. */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU milliseconds of the process's main thread (its task of the same id) and of its other live threads (V8's workers, mostly the garbage collector's), read together. */
export function threadCpuMs(pid: number): { main: number; other: number } {
  let other = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    if (task === String(pid)) continue;
    try {
      other += statCpuMs(`/proc/${pid}/task/${task}/stat`);
    } catch {
      // a thread ended meanwhile
    }
  }
  return { main: statCpuMs(`/proc/${pid}/task/${pid}/stat`), other };
}

export function rssMB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** The processes whose parent is `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}
