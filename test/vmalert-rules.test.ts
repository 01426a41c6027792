// vmalert (VictoriaMetrics) as a second judge of the shipped rule files: `vmalert -dryRun` must load each unchanged.

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { findBinary } from "./helpers/server-process.js";

const RULES_DIR = fileURLToPath(new URL("../prometheus/rules/", import.meta.url));
const PROMETHEUS_RULE = fileURLToPath(new URL("../deploy/kubernetes/prometheusrule.yaml", import.meta.url));

/** Rule files users load: every YAML file under prometheus/rules/ except the promtool unit tests. */
const SHIPPED = readdirSync(RULES_DIR)
  .filter((name) => /\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
  .sort();

interface DryRun {
  code: number;
  output: string;
}

/** `vmalert -dryRun -rule=<file>`: parses the groups, every expression (MetricsQL) and every template, then exits. */
function dryRun(file: string): Promise<DryRun> {
  const binary = findBinary(["vmalert"], "install it: apt-get install victoria-metrics");
  return new Promise((resolve) => {
    execFile(binary, ["-dryRun", `-rule=${file}`], { timeout: 60_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, output });
    });
  });
}

/** The part of vmalert's log that says what it refused, for a failure message. */
const refusal = (output: string) =>
  output
    .split("\n")
    .filter((line) => /\b(fatal|error)\b/.test(line))
    .join("\n") || output;

describe("vmalert loads the shipped rules", () => {
  const dir = mkdtempSync(join(tmpdir(), "te-vmalert-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the shipped rule files", () => {
    expect(SHIPPED).toContain("trading.rules.yml");
  });

  it.each(SHIPPED)(
    "vmalert -dryRun accepts prometheus/rules/%s unchanged",
    async (name) => {
      const result = await dryRun(join(RULES_DIR, name));
      expect(result.code, refusal(result.output)).toBe(0);
    },
    60_000,
  );

  it("vmalert -dryRun accepts the groups of the generated Kubernetes PrometheusRule (what the VictoriaMetrics operator converts)", async () => {
    const manifest = parse(readFileSync(PROMETHEUS_RULE, "utf8")) as { spec: { groups: unknown[] } };
    const file = join(dir, "prometheusrule-groups.yml");
    writeFileSync(file, stringify({ groups: manifest.spec.groups }));
    const result = await dryRun(file);
    expect(result.code, refusal(result.output)).toBe(0);
  }, 60_000);

  it("judges for real: the shipped rules with a keep_firing_for added are refused", async () => {
    const shipped = readFileSync(join(RULES_DIR, "trading.rules.yml"), "utf8");
    const withKeep = shipped.replace(/^( +)for: 1m$/m, "$1for: 1m\n$1keep_firing_for: 1m");
    expect(withKeep).not.toBe(shipped);
    const file = join(dir, "with-keep-firing-for.yml");
    writeFileSync(file, withKeep);
    const result = await dryRun(file);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("unknown fields in rule: keep_firing_for");
  }, 60_000);
});
