// A documented shell block run as a person would: bash with -euo pipefail, in a process group of its own.

import { type ChildProcess, spawn } from "node:child_process";

export interface ShellBlock {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output: () => string;
}

/** Starts `script` in its own process group, so stopping it stops what it started (npm, node, servers). */
export function startBlock(script: string, cwd: string, env: NodeJS.ProcessEnv): ShellBlock {
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

/** The child's exit code, once it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Stops the block's whole process group and waits for its exit. */
export function stopBlock(child: ChildProcess): Promise<number | null> {
  const done = exited(child);
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group is gone already.
    }
  }
  return done;
}
