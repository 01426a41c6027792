// Runs the real promtool; CI installs it, so its absence is a failure, not a skip.

import { spawnSync } from "node:child_process";

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function promtool(args: string[], input?: string): ToolResult {
  const result = spawnSync("promtool", args, { input, encoding: "utf8", timeout: 60_000 });
  if (result.error) {
    throw new Error(`promtool could not run (${result.error.message}); install it with: apt-get install prometheus`);
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** promtool check metrics on an exposition: what it complained about, "" when clean. */
export function checkMetrics(exposition: string): string {
  const result = promtool(["check", "metrics"], exposition);
  const complaints = `${result.stdout}${result.stderr}`.trim();
  if (result.status !== 0 && complaints === "") return `promtool exited ${result.status}`;
  return complaints;
}
