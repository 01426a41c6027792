// The simulated venue as a child process, driven through its control API, for the soak and the benchmark.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { FaultSpec } from "../tools/simulator/server.js";
import { latencyOf } from "./shared.js";

export interface SimulatorProcess {
  url: string;
  pid: number;
  setFaults(faults: FaultSpec[]): Promise<void>;
  tick(n?: number): Promise<void>;
  stats(): Promise<{ requests: Record<string, number> }>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

/** The desk benchmarks' venue: `accounts` accounts of one detailed USDC collateral each, `latencyMs` away. */
export function deskSimulatorArgs(accounts: number, key: string, latencyMs: number): string[] {
  return ["--accounts", String(accounts), "--api-key", key, "--collateral", "USDC:detailed", ...latencyOf(latencyMs).simulatorArgs];
}

const MAIN = new URL("../../dist-tools/tools/simulator/main.js", import.meta.url).pathname;

/** The simulator of another build (BENCH_BASE, its dist folder): in dist/ before the simulator moved to tools/, in dist-tools/ beside it after. */
export function baseSimulator(dist: string): string {
  const inDist = join(dist, "simulator", "main.js");
  return existsSync(inDist) ? inDist : join(dist, "..", "dist-tools", "tools", "simulator", "main.js");
}

/** `main`: another build's simulator (see `baseSimulator`), to measure the build before a change. */
export async function startSimulatorProcess(args: string[], main = MAIN): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, [main, "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /(http:\/\/[^\s]+)/.exec(line);
      if (match) resolve(match[1]!.replace(/\/?$/, "/"));
    });
    child.once("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const control = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const res = await fetch(new URL(path, url), {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    url,
    pid: child.pid!,
    setFaults: async (faults) => void (await control("PUT", "_sim/faults", faults)).body?.cancel(),
    tick: async (n = 1) => void (await control("POST", `_sim/tick?n=${n}`)).body?.cancel(),
    stats: async () => (await (await control("GET", "_sim/stats")).json()) as { requests: Record<string, number> },
    resetStats: async () => void (await control("POST", "_sim/stats/reset")).body?.cancel(),
    close: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
