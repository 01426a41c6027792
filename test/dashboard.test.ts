// Checks the Grafana dashboards' structure, that every query (and every rule) names real metrics, that every
// family is on a panel or listed as left off, that every recording rule is used, and the thresholds are the alerts'.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as T from "../grafana/src/thresholds.js";
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, THRESHOLDS } from "../src/config/threshold-table.js";
import { allPanels, dashboardQueries, loadDashboards, regexOf, variableQuery, type Dashboard } from "./helpers/dashboard-queries.js";
import { readmeMetrics } from "./helpers/readme-metrics.js";

const RULES_PATH = new URL("../prometheus/rules/trading.rules.yml", import.meta.url);

/** The exporter's families as the metrics table of docs/metrics.md documents them. */
const EXPORTER_METRICS = new Set(readmeMetrics().map((f) => f.name));
const PROMETHEUS_METRICS = new Set(["up", "ALERTS"]);

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
function parseRules(source: string): { records: string[]; names: string[]; exprs: string[]; ruleCount: number } {
  const lines = source.split("\n");
  const records: string[] = [];
  const names: string[] = [];
  const exprs: string[] = [];
  let ruleCount = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const rule = /^\s*- (record|alert): (\S+)/.exec(line);
    if (rule) {
      ruleCount++;
      names.push(rule[2] ?? "");
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
  return { records, names, exprs, ruleCount };
}

const shipped = loadDashboards();
const rules = parseRules(readFileSync(RULES_PATH, "utf8"));
const knownMetrics = new Set([...EXPORTER_METRICS, ...PROMETHEUS_METRICS, ...rules.records]);
/** Panels that show data (not rows, text or Grafana's alert list, which queries no data source). */
const queryPanels = (d: Dashboard) => allPanels(d).filter((p) => !["row", "text", "alertlist"].includes(p.type));
const everyExpr = shipped.flatMap(({ dashboard }) => queryPanels(dashboard).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? "")));

function unknownNames(expr: string): string[] {
  const { metrics, functions } = promqlNames(expr);
  return [...metrics.filter((n) => !knownMetrics.has(n)), ...functions.filter((n) => !PROMQL_FUNCTIONS.has(n))];
}

/** The families docs/metrics.md lists under "Left off the dashboards" (a bullet per family, its name first). */
function leftOff(): string[] {
  const doc = readFileSync(new URL("../docs/metrics.md", import.meta.url), "utf8");
  const section = /^### Left off the dashboards\n([\s\S]*?)(?=^#)/m.exec(doc)?.[1];
  if (section === undefined) throw new Error('docs/metrics.md has no "### Left off the dashboards" section');
  return [...section.matchAll(/^- `([a-z_:]+)`/gm)].map((m) => m[1]!);
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

describe("grafana dashboards", () => {
  it("are the desk overview and the account detail, for Grafana 11+, over the last hour", () => {
    expect(shipped.map((s) => `${s.file}: ${s.dashboard.uid}`)).toEqual(["trading-account.json: trading-account", "trading-desk.json: trading-desk"]);
    for (const { dashboard } of shipped) {
      expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
      expect(dashboard.time).toEqual({ from: "now-1h", to: "now" });
    }
  });

  it("have the variables: the account picker on both, collateral and markets scoped to the account on the detail", () => {
    const vars = (uid: string) => new Map(shipped.find((s) => s.dashboard.uid === uid)!.dashboard.templating.list.map((v) => [v.name, v]));
    const desk = vars("trading-desk");
    expect([...desk.keys()]).toEqual(["datasource", "account"]);
    expect(desk.get("account")).toMatchObject({ type: "query", query: "label_values(trading_up, account)", multi: true, includeAll: true });
    const account = vars("trading-account");
    expect([...account.keys()]).toEqual(["datasource", "account", "collateral_id", "market_id"]);
    expect(account.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(account.get("account")).toMatchObject({ type: "query", query: "label_values(trading_up, account)", multi: false });
    expect(variableQuery(account.get("collateral_id")!)).toBe('label_values(trading_account_collateral_balance{account="$account"}, collateral_id)');
    expect(variableQuery(account.get("market_id")!)).toBe('label_values(trading_position_size{account="$account", collateral_id="$collateral_id"}, market_id)');
  });

  it("show the firing alerts on the overview: an alert list and a count", () => {
    const desk = allPanels(shipped.find((s) => s.dashboard.uid === "trading-desk")!.dashboard);
    expect(desk.filter((p) => p.type === "alertlist").map((p) => p.title)).toEqual(["Firing alerts"]);
    expect(desk.some((p) => p.targets?.some((t) => t.expr?.includes('ALERTS{alertstate="firing"')))).toBe(true);
  });

  for (const { file, dashboard } of shipped) {
    describe(file, () => {
      it.each(queryPanels(dashboard).map((p) => [p.title, p] as const))('panel "%s" has a description, unit, gridPos and queries', (_title, panel) => {
        expect(panel.description?.trim()).toBeTruthy();
        expect(panel.fieldConfig?.defaults?.unit).toMatch(/^\w+$/);
        expect(panel.gridPos).toMatchObject({ h: expect.any(Number), w: expect.any(Number), x: expect.any(Number), y: expect.any(Number) });
        expect(panel.targets?.length).toBeGreaterThan(0);
        for (const t of panel.targets ?? []) expect(t.expr?.trim()).toBeTruthy();
        expect((panel as { datasource?: unknown }).datasource, panel.title).toEqual({ type: "prometheus", uid: "${datasource}" });
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

      it("queries only exporter metrics, recording rules, up, ALERTS and PromQL functions", () => {
        for (const p of queryPanels(dashboard)) {
          for (const t of p.targets ?? []) expect(unknownNames(t.expr ?? ""), `${p.title}: ${t.expr}`).toEqual([]);
        }
        for (const v of dashboard.templating.list) {
          if (v.type !== "query") continue;
          const labelValues = /^label_values\((.*),\s*\w+\)$/.exec(variableQuery(v) ?? "");
          expect(labelValues, v.name).not.toBeNull();
          expect(unknownNames(labelValues?.[1] ?? ""), v.name).toEqual([]);
        }
      });

      it("filters every account series by the account variable", () => {
        for (const p of queryPanels(dashboard)) {
          for (const t of p.targets ?? []) {
            const expr = t.expr ?? "";
            for (const metric of promqlNames(expr).metrics) {
              if (/^(trading_account_|trading_position_|trading_up|trading_active_orders|trading_order|trading_collection_|account:)/.test(metric)) {
                expect(expr, `${p.title}: ${metric} without $account`).toContain("$account");
              }
            }
          }
        }
      });

      it("dashboardQueries substitutes every variable", () => {
        const queries = dashboardQueries(dashboard, { account: "alice" });
        expect(queries.length).toBe(queryPanels(dashboard).reduce((n, p) => n + (p.targets?.length ?? 0), 0));
        for (const q of queries) expect(q.expr, q.panel).not.toMatch(/\$|\[\[/);
        expect(queries.some((q) => q.expr.includes('account=~"alice"') || q.expr.includes('account="alice"'))).toBe(true);
      });
    });
  }

  it("regexOf writes several values as Grafana does, escaped for a PromQL string", () => {
    expect(regexOf(["a"])).toBe("a");
    expect(regexOf(["BTC-USD", "a.b"])).toBe("(BTC-USD|a\\\\.b)");
  });
});

describe("coverage of the exported families and the recording rules", () => {
  const used = new Set(everyExpr.flatMap((e) => promqlNames(e).metrics));
  const ruleUses = new Set(rules.exprs.flatMap((e) => promqlNames(e).metrics));
  /** A rule read by the alerts' annotation templates (`query "..."`), not by an expression. */
  const rulesText = readFileSync(RULES_PATH, "utf8");
  for (const r of rules.records) if (rulesText.includes(`query "${r}"`)) ruleUses.add(r);

  it("puts every documented family on a panel, or lists it in docs/metrics.md as left off the dashboards", () => {
    const off = new Set(leftOff());
    const missing = [...EXPORTER_METRICS].filter((f) => !used.has(f) && !off.has(f));
    expect(missing, 'families on no panel and not listed under "Left off the dashboards" in docs/metrics.md').toEqual([]);
    const both = [...off].filter((f) => used.has(f) || !EXPORTER_METRICS.has(f));
    expect(both, "listed as left off but on a panel, or not an exported family").toEqual([]);
  });

  it("uses every recording rule on a panel or in an alert", () => {
    const unused = rules.records.filter((r) => !used.has(r) && !ruleUses.has(r));
    expect(unused).toEqual([]);
  });
});

describe("dashboard thresholds", () => {
  const expr = (name: string): string => {
    const i = rules.names.indexOf(name);
    if (i < 0) throw new Error(`no rule ${name}`);
    return rules.exprs[i]!;
  };
  /** The number after the first `op` in a rule's expression. */
  const literal = (name: string, op: string) => Number(new RegExp(`${op.replace(/[<>]/g, "\\$&")}\\s*([0-9.]+)`).exec(expr(name))?.[1]);

  it("are the table's defaults (the rules' fallbacks, test/rules-thresholds.test.ts), and the stale-data alert's literal", () => {
    expect([T.MARGIN_RATIO_WARNING, T.MARGIN_RATIO_CRITICAL, T.LIQUIDATION_DISTANCE_WARNING, T.LIQUIDATION_DISTANCE_CRITICAL]).toEqual([
      DEFAULT_THRESHOLDS.margin_ratio_warning,
      DEFAULT_THRESHOLDS.margin_ratio_critical,
      DEFAULT_THRESHOLDS.liquidation_distance_warning,
      DEFAULT_THRESHOLDS.liquidation_distance_critical,
    ]);
    expect([T.MARGIN_USAGE_WARNING, T.MARGIN_USAGE_CRITICAL]).toEqual([DEFAULT_THRESHOLDS.margin_usage_warning, DEFAULT_THRESHOLDS.margin_usage_critical]);
    expect([T.SIZE_LIMIT_WARNING, T.ORDER_AGE_WARNING_SECONDS]).toEqual([
      DEFAULT_THRESHOLDS.size_limit_warning,
      DEFAULT_THRESHOLDS.active_order_age_warning_seconds,
    ]);
    expect(T.DATA_AGE_WARNING_SECONDS).toBe(literal("TradingCollectionStale", ">"));
  });

  it("are drawn on the account dashboard from each threshold series of the account, the stricter of two exporters, the default where none", () => {
    const account = shipped.find(({ file }) => file === "trading-account.json")!.dashboard;
    const exprs = queryPanels(account).flatMap((p) => ((p.targets ?? []) as Array<{ expr?: string }>).map((t) => t.expr ?? ""));
    for (const key of THRESHOLD_KEYS) {
      const spec = THRESHOLDS[key];
      const family = spec.unit === "seconds" ? "trading_account_alert_threshold_seconds" : "trading_account_alert_threshold";
      expect(exprs, key).toContain(`${spec.fires === "above" ? "min" : "max"}(${family}{account="$account", threshold="${key}"}) or vector(${spec.default})`);
    }
  });

  it("colour at those values in the generated panels", () => {
    const steps = shipped.flatMap(({ dashboard }) =>
      queryPanels(dashboard).flatMap((p) => {
        const fc = p.fieldConfig as {
          defaults?: { thresholds?: { steps: Array<{ value: number | null }> } };
          overrides?: Array<{ properties: Array<{ id: string; value: unknown }> }>;
        };
        const own = fc?.defaults?.thresholds?.steps ?? [];
        const columns = (fc?.overrides ?? []).flatMap((o) =>
          o.properties.filter((x) => x.id === "thresholds").flatMap((x) => (x.value as { steps: Array<{ value: number | null }> }).steps),
        );
        return [...own, ...columns].map((s) => s.value).filter((v): v is number => v !== null);
      }),
    );
    const allowed = new Set([
      T.MARGIN_RATIO_WARNING,
      T.MARGIN_RATIO_CRITICAL,
      T.MARGIN_USAGE_WARNING,
      T.MARGIN_USAGE_CRITICAL,
      T.LIQUIDATION_DISTANCE_CRITICAL,
      T.LIQUIDATION_DISTANCE_WARNING,
      T.SIZE_LIMIT_WARNING,
      T.DATA_AGE_WARNING_SECONDS,
      T.ORDER_AGE_WARNING_SECONDS,
      1,
    ]);
    expect(steps.length).toBeGreaterThan(10);
    expect([...new Set(steps)].filter((v) => !allowed.has(v))).toEqual([]);
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
