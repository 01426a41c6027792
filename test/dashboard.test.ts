// Checks the Grafana dashboard's structure and that every query (and every rule) names real metrics.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allPanels, dashboardQueries, loadDashboard } from "./helpers/dashboard-queries.js";
import { readmeMetrics } from "./helpers/readme-metrics.js";

const RULES_PATH = new URL("../prometheus/rules/trading.rules.yml", import.meta.url);

/** The exporter's families as the metrics table of docs/metrics.md documents them. */
const EXPORTER_METRICS = new Set(readmeMetrics().map((f) => f.name));
const PROMETHEUS_METRICS = new Set(["up"]);

const PROMQL_FUNCTIONS = new Set([
  // aggregation operators
  "sum",
  "min",
  "max",
  "avg",
  "group",
  "stddev",
  "stdvar",
  "count",
  "count_values",
  "bottomk",
  "topk",
  "quantile",
  // functions
  "abs",
  "absent",
  "absent_over_time",
  "ceil",
  "changes",
  "clamp",
  "clamp_max",
  "clamp_min",
  "day_of_month",
  "day_of_week",
  "day_of_year",
  "days_in_month",
  "delta",
  "deriv",
  "exp",
  "floor",
  "histogram_quantile",
  "holt_winters",
  "hour",
  "idelta",
  "increase",
  "irate",
  "label_join",
  "label_replace",
  "ln",
  "log2",
  "log10",
  "minute",
  "month",
  "predict_linear",
  "rate",
  "resets",
  "round",
  "scalar",
  "sgn",
  "sort",
  "sort_desc",
  "sqrt",
  "time",
  "timestamp",
  "vector",
  "year",
  "avg_over_time",
  "min_over_time",
  "max_over_time",
  "sum_over_time",
  "count_over_time",
  "quantile_over_time",
  "stddev_over_time",
  "stdvar_over_time",
  "last_over_time",
  "present_over_time",
]);
const KEYWORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "inf", "nan", "atan2"]);

/** Metric names and function names used in a PromQL expression (Grafana variables allowed). */
function promqlNames(expr: string): { metrics: string[]; functions: string[] } {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$\{?\w+(?::\w+)?\}?/g, " ");
  const metrics: string[] = [];
  const functions: string[] = [];
  for (const m of stripped.matchAll(/(?<![\w.:])[a-zA-Z_:][\w:]*/g)) {
    const name = m[0];
    if (KEYWORDS.has(name.toLowerCase())) continue;
    const rest = stripped.slice((m.index ?? 0) + name.length);
    if (/^\s*\(/.test(rest)) functions.push(name);
    else metrics.push(name);
  }
  return { metrics, functions };
}

/** Names and expressions of the rules file. Reads only the subset of YAML the file uses:
 *  `- record:`/`- alert:` lines and `expr:` given inline or as a `|` block. */
function parseRules(source: string): { records: string[]; exprs: string[]; ruleCount: number } {
  const lines = source.split("\n");
  const records: string[] = [];
  const exprs: string[] = [];
  let ruleCount = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const rule = /^\s*- (record|alert): (\S+)/.exec(line);
    if (rule) {
      ruleCount++;
      if (rule[1] === "record" && rule[2] !== undefined) records.push(rule[2]);
      continue;
    }
    const expr = /^(\s*)expr: (.*)$/.exec(line);
    if (!expr) continue;
    const indent = (expr[1] ?? "").length;
    const value = (expr[2] ?? "").trim();
    if (value !== "|" && value !== ">") {
      exprs.push(value);
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length) {
      const next = lines[i + 1] ?? "";
      if (next.trim() !== "" && next.length - next.trimStart().length <= indent) break;
      block.push(next);
      i++;
    }
    exprs.push(block.join("\n").trim());
  }
  return { records, exprs, ruleCount };
}

const dashboard = loadDashboard();
const panels = allPanels(dashboard).filter((p) => p.type !== "row");
const rules = parseRules(readFileSync(RULES_PATH, "utf8"));
const knownMetrics = new Set([...EXPORTER_METRICS, ...PROMETHEUS_METRICS, ...rules.records]);

function unknownNames(expr: string): string[] {
  const { metrics, functions } = promqlNames(expr);
  return [...metrics.filter((n) => !knownMetrics.has(n)), ...functions.filter((n) => !PROMQL_FUNCTIONS.has(n))];
}

describe("promqlNames", () => {
  it("separates metrics from functions, labels, durations, numbers and variables", () => {
    expect(promqlNames('sum by (endpoint, reason) (rate(foo_total{a=~"$account|"}[$__rate_interval])) > 0.5e1')).toEqual({
      metrics: ["foo_total"],
      functions: ["sum", "rate"],
    });
    expect(promqlNames("x > on (market_id) group_left () max by (market_id) (y offset 15m) and bool z")).toEqual({
      metrics: ["x", "y", "z"],
      functions: ["max"],
    });
    expect(promqlNames('account:foo:ratio{collateral_id=~"${collateral_id}"} * 1000').metrics).toEqual(["account:foo:ratio"]);
  });
});

describe("unknownNames", () => {
  it("knows the documented families, recorded series and up, and nothing else", () => {
    expect(unknownNames('sum by (account) (trading_up{account=~"$account"}) + trading_market_max_position_size')).toEqual([]);
    expect(unknownNames("account:trading_margin_ratio:max > 0 and up")).toEqual([]);
    expect(unknownNames('max(trading_account_margin_ratios{account=~"$account"}) or trading_up')).toEqual(["trading_account_margin_ratios"]);
    expect(unknownNames("rates(trading_up[5m])")).toEqual(["rates"]);
  });
});

describe("grafana dashboard", () => {
  it("targets Grafana 11+ and has the four variables", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(vars.get("account")).toMatchObject({ type: "query", query: "label_values(trading_up, account)", multi: true, includeAll: true });
    expect(vars.get("collateral_id")).toMatchObject({
      type: "query",
      query: 'label_values(trading_account_collateral_balance{account=~"$account"}, collateral_id)',
    });
    expect(vars.get("market_id")).toMatchObject({ type: "query", query: "label_values(trading_market_info, market_id)", multi: true, includeAll: true });
  });

  it("has the six rows", () => {
    expect(
      allPanels(dashboard)
        .filter((p) => p.type === "row")
        .map((p) => p.title),
    ).toEqual(["Account overview", "Liquidation risk", "Positions", "Orders", "Markets", "Exporter health", "Position limits"]);
  });

  it.each(panels.map((p) => [p.title, p] as const))('panel "%s" has a description, unit, gridPos and queries', (_title, panel) => {
    expect(panel.description?.trim()).toBeTruthy();
    expect(panel.fieldConfig?.defaults?.unit).toMatch(/^\w+$/);
    expect(panel.gridPos).toMatchObject({ h: expect.any(Number), w: expect.any(Number), x: expect.any(Number), y: expect.any(Number) });
    expect(panel.targets?.length).toBeGreaterThan(0);
    for (const t of panel.targets ?? []) expect(t.expr?.trim()).toBeTruthy();
  });

  it("uses the ${datasource} variable on every panel", () => {
    for (const p of panels) expect((p as { datasource?: unknown }).datasource, p.title).toEqual({ type: "prometheus", uid: "${datasource}" });
  });

  it("has unique panel ids and no overlapping panels", () => {
    const all = allPanels(dashboard);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    const cells = new Set<string>();
    for (const p of all) {
      const g = p.gridPos;
      if (!g) continue;
      expect(g.x + g.w, p.title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  it("queries only exporter metrics, recording rules, up and PromQL functions", () => {
    for (const p of panels) {
      for (const t of p.targets ?? []) expect(unknownNames(t.expr ?? ""), `${p.title}: ${t.expr}`).toEqual([]);
    }
    for (const v of dashboard.templating.list) {
      const query = typeof v.query === "string" ? v.query : v.query?.query;
      const labelValues = query === undefined ? null : /^label_values\((.*),\s*\w+\)$/.exec(query);
      if (v.type !== "query") continue;
      expect(labelValues, v.name).not.toBeNull();
      expect(unknownNames(labelValues?.[1] ?? ""), v.name).toEqual([]);
    }
  });

  it("filters by the dashboard variables wherever the metric carries the label", () => {
    const needs = (metric: string): string[] => {
      if (/^(trading_account_|trading_position_|account:trading_margin_utilisation)/.test(metric)) return ["$account", "$collateral_id"];
      if (/^(trading_up|trading_scrape_|trading_active_orders|trading_order_history|account:)/.test(metric)) return ["$account"];
      if (/^trading_market_/.test(metric)) return ["$market_id"];
      return [];
    };
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const expr = t.expr ?? "";
        for (const metric of promqlNames(expr).metrics) {
          for (const v of needs(metric)) expect(expr, `${p.title}: ${metric} without ${v}`).toContain(v);
        }
      }
    }
  });

  it("dashboardQueries substitutes every variable", () => {
    const queries = dashboardQueries({ account: "alice|bob", market_id: "BTC-USD" });
    expect(queries.length).toBe(panels.reduce((n, p) => n + (p.targets?.length ?? 0), 0));
    for (const q of queries) expect(q.expr, q.panel).not.toMatch(/\$|\[\[/);
    expect(queries.some((q) => q.expr.includes('account=~"alice|bob"'))).toBe(true);
    expect(queries.some((q) => q.expr.includes("[1m]"))).toBe(true);
    expect(queries.some((q) => q.expr.includes('collateral_id=~".*"'))).toBe(true);
  });
});

describe("prometheus rules", () => {
  it("reads every rule expression", () => {
    expect(rules.exprs.length).toBe(rules.ruleCount);
    expect(rules.records).toContain("account:trading_margin_ratio:max");
  });

  it("use only exporter metrics, recording rules, up and PromQL functions", () => {
    for (const expr of rules.exprs) expect(unknownNames(expr), expr).toEqual([]);
  });
});
