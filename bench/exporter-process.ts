// The exporter as a child process for the benchmark, with the event-loop probe preloaded.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { createInterface } from "node:readline";

export interface ExporterProcess {
  url: string;
  pid: number;
  /** Event-loop delay since the last call (ms), from the preloaded probe. */
  loopDelay(): Promise<{ p50: number; p99: number; max: number }>;
  close(): Promise<void>;
}

const MAIN = new URL("../../dist/main.js", import.meta.url).pathname;

/**
 * The node flags a command runs with, read from its shebang, so the benchmark measures the same thing: `main`'s
 * own (a base build's, which may differ), or the shipped command's for a script without one (the bounds).
 */
export function shippedNodeFlags(main = MAIN): string[] {
  const first = readFileSync(main, "utf8").split("\n", 1)[0] ?? "";
  const shebang = first.startsWith("#!") ? first : (readFileSync(MAIN, "utf8").split("\n", 1)[0] ?? "");
  return shebang.split(/\s+/).filter((part) => part.startsWith("--"));
}

/** Node flags to weigh (BENCH_NODE_ARGS, e.g. "--heap-growing-percent=100"), after the shipped ones, for the exporter and the processes compared with it. */
export function benchNodeArgs(): string[] {
  return (process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
}

/** The image's runtime environment (MALLOC_ARENA_MAX), read from the Dockerfile. */
export function imageEnvironment(): Record<string, string> {
  const dockerfile = new URL("../../Dockerfile", import.meta.url);
  const env: Record<string, string> = {};
  try {
    for (const match of readFileSync(dockerfile, "utf8").matchAll(/\bMALLOC_ARENA_MAX=(\d+)/g)) env.MALLOC_ARENA_MAX = match[1]!;
  } catch {
    // no Dockerfile beside the build (an installed package): measure with the defaults
  }
  return env;
}
const PROBE = new URL("./loop-probe.js", import.meta.url).href;

/**
 * `nodeArgs`: more node flags after the shipped ones, e.g. `--cpu-prof` to profile a benchmark run.
 * `main` and `args`: another server run the same way (the scale benchmark's bound), which prints {"url":...} on stderr too.
 */
export async function startExporterProcess(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  main = MAIN,
  args: readonly string[] = [],
): Promise<ExporterProcess> {
  const child = spawn(process.execPath, [...shippedNodeFlags(main), ...nodeArgs, "--import", PROBE, main, ...args], {
    env: { PATH: process.env.PATH ?? "", TRADING_LISTEN_ADDRESS: "127.0.0.1:0", ...imageEnvironment(), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const loopLines: Array<(line: string) => void> = [];
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (line.includes('"loopDelay"')) loopLines.shift()?.(line);
      const match = /"url":"([^"]+)"/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exporter exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    async loopDelay() {
      const line = new Promise<string>((resolve) => loopLines.push(resolve));
      child.kill("SIGUSR2");
      return (JSON.parse(await line) as { loopDelay: { p50: number; p99: number; max: number } }).loopDelay;
    },
    async close() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
