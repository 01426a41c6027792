// Runs the real amtool (Debian's prometheus-alertmanager); CI installs it, so its absence is a failure, not a skip.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ALERTMANAGER_DIR = fileURLToPath(new URL("../../prometheus/alertmanager/", import.meta.url));
export const ALERTMANAGER_CONFIG = `${ALERTMANAGER_DIR}alertmanager.yml`;

export interface ToolResult {
  status: number | null;
  output: string;
}

export function amtool(args: string[], cwd = ALERTMANAGER_DIR): ToolResult {
  const result = spawnSync("amtool", args, { cwd, encoding: "utf8", timeout: 60_000 });
  if (result.error) {
    throw new Error(`amtool could not run (${result.error.message}); install it with: apt-get install prometheus-alertmanager`);
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The receivers an alert with these labels is routed to by a config file. */
export function routeOf(configFile: string, labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  const result = amtool(["config", "routes", "test", `--config.file=${configFile}`, ...pairs]);
  if (result.status !== 0) throw new Error(`amtool config routes test ${pairs.join(" ")}: ${result.output}`);
  return result.output
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("Warning:"))
    .join("\n")
    .trim();
}

/** Renders `text` with the shipped templates and the given notification data (Alertmanager's template.Data as JSON). */
export function renderTemplate(text: string, dataFile: string): string {
  const result = amtool(["template", "render", "--template.glob=templates/*.tmpl", `--template.text=${text}`, `--template.data=${dataFile}`]);
  if (result.status !== 0) throw new Error(`amtool template render: ${result.output}`);
  return result.output;
}
