// Reads the shipped Grafana dashboards and returns every panel query with its variables substituted.
import { readdirSync, readFileSync } from "node:fs";

export const DASHBOARDS_DIR = new URL("../../grafana/dashboards/", import.meta.url);

export interface DashboardTarget {
  refId?: string;
  expr?: string;
  instant?: boolean;
}

export interface DashboardPanel {
  id?: number;
  type: string;
  title: string;
  description?: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: DashboardTarget[];
  panels?: DashboardPanel[];
  options?: { content?: string };
}

export interface DashboardVariable {
  type: string;
  name: string;
  query?: string | { query?: string };
  multi?: boolean;
  includeAll?: boolean;
  current?: { value?: string | string[] };
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  time: { from: string; to: string };
  panels: DashboardPanel[];
  templating: { list: DashboardVariable[] };
}

/** Every dashboard of grafana/dashboards, by file name. */
export function loadDashboards(): Array<{ file: string; dashboard: Dashboard }> {
  return readdirSync(DASHBOARDS_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, dashboard: JSON.parse(readFileSync(new URL(file, DASHBOARDS_DIR), "utf8")) as Dashboard }));
}

/** Every panel, rows included, with the panels of collapsed rows flattened in. */
export function allPanels(dashboard: Dashboard): DashboardPanel[] {
  return dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** The query of a query variable (`label_values(selector, label)`). */
export function variableQuery(v: DashboardVariable): string | undefined {
  return typeof v.query === "string" ? v.query : v.query?.query;
}

// Grafana's global variables, sized for a 1s scrape interval and a 1h range (the tests scrape every second).
const BUILTIN_DEFAULTS: Record<string, string> = {
  __rate_interval: "4s",
  __interval: "1s",
  __interval_ms: "1000",
  __range: "1h",
  __range_s: "3600",
  __range_ms: "3600000",
};

const VARIABLE = /\$\{(\w+)(?::\w+)?\}|\[\[(\w+)(?::\w+)?\]\]|\$(\w+)/g;

/** `text` with `$var`, `${var}` and `[[var]]` replaced from `values`; throws on one without a value. */
export function substitute(text: string, values: Record<string, string>, where: string): string {
  return text.replace(VARIABLE, (match, a?: string, b?: string, c?: string) => {
    const value = values[a ?? b ?? c ?? ""];
    if (value === undefined) throw new Error(`${where}: no value for variable ${match} in ${text}`);
    return value;
  });
}

export interface PanelQuery {
  panel: string;
  type: string;
  expr: string;
  instant: boolean;
}

/**
 * Every panel query of `dashboard` with its variables replaced: Grafana's globals from BUILTIN_DEFAULTS,
 * the dashboard's from `vars` (a variable `vars` lacks defaults to `.*`, its "All" in `=~` matchers).
 */
export function dashboardQueries(dashboard: Dashboard, vars: Record<string, string>): PanelQuery[] {
  const values: Record<string, string> = { ...BUILTIN_DEFAULTS };
  for (const v of dashboard.templating.list) {
    if (v.type !== "datasource") values[v.name] = ".*";
  }
  Object.assign(values, vars);
  const out: PanelQuery[] = [];
  for (const panel of allPanels(dashboard)) {
    for (const target of panel.targets ?? []) {
      if (target.expr === undefined) continue;
      out.push({ panel: panel.title, type: panel.type, expr: substitute(target.expr, values, `panel "${panel.title}"`), instant: target.instant === true });
    }
  }
  return out;
}

/** A multi-value variable's values as Grafana writes them into a PromQL regex: `(a|b)`, each value regex-escaped. */
export function regexOf(values: string[]): string {
  const escaped = values.map((v) => v.replace(/[\\^$.*+?()[\]{}|]/g, "\\\\$&"));
  return escaped.length === 1 ? escaped[0]! : `(${escaped.join("|")})`;
}

/**
 * The dashboard's variables at their defaults, as Grafana resolves them on load, in order: a single-value
 * variable takes the first of its sorted values, a multi-value one with "All" current takes all of them.
 * `labelValues(selector, label)` answers a `label_values()` query (from Prometheus).
 */
export async function defaultVariables(
  dashboard: Dashboard,
  labelValues: (selector: string, label: string) => Promise<string[]>,
): Promise<Record<string, string>> {
  const values: Record<string, string> = { ...BUILTIN_DEFAULTS };
  for (const v of dashboard.templating.list) {
    if (v.type !== "query") continue;
    const m = /^label_values\((.*),\s*(\w+)\)$/.exec(variableQuery(v) ?? "");
    if (!m) throw new Error(`variable ${v.name}: cannot read its query ${variableQuery(v)}`);
    const found = [...new Set(await labelValues(substitute(m[1]!, values, `variable ${v.name}`), m[2]!))].sort();
    if (found.length === 0) throw new Error(`variable ${v.name} has no values: ${variableQuery(v)}`);
    const all = v.includeAll === true && JSON.stringify(v.current?.value) === JSON.stringify(["$__all"]);
    values[v.name] = all ? regexOf(found) : found[0]!;
  }
  return values;
}
