// Runs promtool on the shipped rules, rule unit tests and example Prometheus config.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const PROMETHEUS_DIR = fileURLToPath(new URL("../prometheus/", import.meta.url));
const RULES_DIR = fileURLToPath(new URL("../prometheus/rules/", import.meta.url));

interface Result {
  code: number;
  output: string;
}

function promtool(args: string[], cwd: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile("promtool", args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (error === null) {
        resolve({ code: 0, output });
        return;
      }
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        reject(new Error("promtool is not on PATH: install Prometheus (Debian/Ubuntu: apt-get install prometheus) to run the rule tests"));
        return;
      }
      resolve({ code: typeof error.code === "number" ? error.code : -1, output: `${error.message}\n${output}` });
    });
  });
}

describe("prometheus rules and config", () => {
  it("promtool check rules accepts every rule", async () => {
    const source = readFileSync(`${RULES_DIR}trading.rules.yml`, "utf8");
    const ruleCount = source.match(/^\s*- (?:alert|record):/gm)?.length ?? 0;
    const result = await promtool(["check", "rules", "trading.rules.yml"], RULES_DIR);
    expect(result.code, result.output).toBe(0);
    expect(ruleCount).toBeGreaterThan(0);
    expect(result.output).toContain(`SUCCESS: ${ruleCount} rules found`);
  }, 60_000);

  // One promtool run per unit-test file, each named for what it shows.
  const UNIT_TESTS = [
    ["trading.rules.test.yml", "the rule unit tests"],
    ["trading.rules.gaps.test.yml", "the gap cases (a one-scrape gap bridged, a recovery resolved at once) at the shipped 15 s interval"],
    [
      "trading.rules.margin.test.yml",
      "the position margin cases: liquidation-distance tiers that fire once and resolve once on flapping input, the size limit",
    ],
    [
      "trading.rules.probe-layout.test.yml",
      "the /probe layout: market series under the venue's own target join each account's positions on market_id, once with both jobs",
    ],
    [
      "trading.rules.thresholds.test.yml",
      "per-account thresholds: two accounts with different thresholds on the same value, the stricter of two exporters, the defaults where none are exported, a reload, the 1.2 x resolve band",
    ],
    [
      "trading.rules.usage.test.yml",
      "margin in use: pages only for a collateral with no margin ratio (summary shape, list cut short), once with both jobs, no margin left, per-account thresholds",
    ],
    [
      "trading.rules.trend.test.yml",
      "time to liquidation at the trend: a ratio rising a point a minute warns by minute 40, flat, falling and a jump never, a gap bridged, an account's own horizon, margin in use in its own words",
    ],
    [
      "trading.rules.dedupe.test.yml",
      "the dedupe cases: with the /metrics and /probe jobs side by side, every alert fires once per account, and stays one alert when a job goes away",
    ],
  ] as const;
  it("runs every promtool unit-test file of prometheus/rules", () => {
    const files = readdirSync(RULES_DIR).filter((f) => f.endsWith(".test.yml"));
    expect(files.sort()).toEqual(UNIT_TESTS.map(([file]) => file).sort());
  });
  it.each(UNIT_TESTS)(
    "promtool test rules %s passes: %s",
    async (file) => {
      const result = await promtool(["test", "rules", file], RULES_DIR);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain("SUCCESS");
    },
    60_000,
  );

  it("every alert built from the venue's series reads each series as last_over_time over four shipped scrape intervals, none with keep_firing_for", () => {
    const rules = (parse(readFileSync(`${RULES_DIR}trading.rules.yml`, "utf8")) as { groups: { rules: Record<string, unknown>[] }[] }).groups.flatMap(
      (g) => g.rules,
    );
    const scrape = readFileSync(`${PROMETHEUS_DIR}prometheus.example.yml`, "utf8").match(/^\s+scrape_interval: (\d+)s$/m)?.[1];
    expect(scrape).toBe("15");
    const window = `[${(4 * Number(scrape)) / 60}m]`;
    const alerts = rules.filter((r) => typeof r.alert === "string");
    // `up` never vanishes, a 10m window outlasts a gap, TradingDataMissing must end when the data returns,
    // and TradingCollectionStale reads its sample's own timestamp, which no range function keeps (a gap
    // in scrapes is TradingExporterDown's).
    const bare = ["TradingExporterDown", "TradingVenueRateLimited", "TradingDataMissing", "TradingCollectionStale"];
    expect(alerts.length).toBeGreaterThan(bare.length + 5);
    for (const rule of alerts) {
      const name = String(rule.alert);
      // vmalert (VictoriaMetrics 1.79) refuses the whole file over this key.
      expect(Object.keys(rule), name).not.toContain("keep_firing_for");
      const expr = String(rule.expr);
      if (bare.includes(name)) {
        expect(expr, name).not.toContain("last_over_time");
        continue;
      }
      // A recorded trend (account:..., a deriv over 10 minutes or more) outlasts a gap as well: only the venue's own series count.
      const selectors = [...expr.matchAll(/(?:last_over_time\()?(?<![:\w])trading_\w+(?:\{[^}]*\})?(?:\[\w+\])?/g)].map((m) => m[0]);
      expect(selectors.length, name).toBeGreaterThan(0);
      // A window of 10m or more (a counter's increase or rate, a trend's sample count) outlasts a gap of scrapes as well.
      const counterOverLongWindow = (selector: string) => Number(/^trading_\w+(?:\{[^}]*\})?\[(\d+)m\]$/.exec(selector)?.[1] ?? 0) >= 10;
      for (const selector of selectors) {
        expect((selector.startsWith("last_over_time(") && selector.endsWith(window)) || counterOverLongWindow(selector), `${name}: ${selector}`).toBe(true);
      }
    }
  });

  it.each(["prometheus.example.yml", "prometheus.probe.example.yml"])(
    "promtool check config accepts the example Prometheus config %s and its rule files",
    async (file) => {
      const result = await promtool(["check", "config", file], PROMETHEUS_DIR);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain("SUCCESS: 1 rule files found");
      expect(result.output).toContain(`SUCCESS: ${file} is valid prometheus config file syntax`);
    },
    60_000,
  );

  it("each example config has one pattern: the account series come from one job only", () => {
    const jobs = (file: string) =>
      (parse(readFileSync(`${PROMETHEUS_DIR}${file}`, "utf8")) as { scrape_configs: Array<{ job_name: string; metrics_path?: string }> }).scrape_configs;
    expect(jobs("prometheus.example.yml").map((j) => j.job_name)).toEqual(["trading"]);
    const probe = jobs("prometheus.probe.example.yml");
    expect(probe.map((j) => j.job_name)).toEqual(["trading_probe", "trading_exporter"]);
    // The second job of the probe file reads only the exporter's own series, none of an account's.
    expect(probe[1]?.metrics_path).toBe("/exporter-metrics");
  });
});
