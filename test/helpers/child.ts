// Runs the built exporter (dist/main.js) as a child process and waits for its "listening" line.

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { onTestFinished } from "vitest";

export const MAIN = new URL("../../dist/main.js", import.meta.url).pathname;

export interface ExporterChild {
  child: ChildProcess;
  url: string;
  /** Every stderr line so far. */
  lines: string[];
  exited: Promise<number | null>;
}

export function startExporterChild(env: Record<string, string>, args: string[] = []): Promise<ExporterChild> {
  return watchExporterChild(spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}

/** Waits for the "listening" line of an exporter the caller spawned (stderr piped), and stops it when the test ends. */
export async function watchExporterChild(child: ChildProcess): Promise<ExporterChild> {
  // Started inside a test: stopped when it ends, even when an assertion failed half-way.
  // (Started in beforeAll, the file's afterAll stops it.)
  try {
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
  } catch {
    // not inside a test
  }
  const lines: string[] = [];
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on("line", (line) => {
      lines.push(line);
      // The listening line's url, in JSON or logfmt.
      const match = /"url":"([^"]+)"|(?:^| )url=(\S+)/.exec(line);
      if (match) resolve((match[1] ?? match[2])!);
    });
    void exited.then((code) => reject(new Error(`exporter exited with ${code}: ${lines.join("\n")}`)));
  });
  return { child, url, lines, exited };
}

/** Runs the exporter to completion (for start-up failures) and returns its exit code and output. */
export async function runExporter(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  // "close", not "exit": the process can exit before its last output has been read from the pipes.
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stderr, stdout };
}
