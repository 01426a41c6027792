// Reads the shipped Grafana dashboard and returns every panel query with its variables substituted.
import { readFileSync } from "node:fs";

export const DASHBOARD_PATH = new URL("../../grafana/dashboards/trading-exporter.json", import.meta.url);

export interface DashboardTarget {
  refId?: string;
  expr?: string;
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
}

export interface DashboardVariable {
  type: string;
  name: string;
  query?: string | { query?: string };
  multi?: boolean;
  includeAll?: boolean;
}

export interface Dashboard {
  schemaVersion: number;
  panels: DashboardPanel[];
  templating: { list: DashboardVariable[] };
}

export function loadDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_PATH, "utf8")) as Dashboard;
}

/** Every panel, rows included, with the panels of collapsed rows flattened in. */
export function allPanels(dashboard: Dashboard): DashboardPanel[] {
  return dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

// Grafana's global variables, sized for a 15s scrape interval and a 1h range.
const BUILTIN_DEFAULTS: Record<string, string> = {
  __rate_interval: "1m",
  __interval: "15s",
  __interval_ms: "15000",
  __range: "1h",
  __range_s: "3600",
  __range_ms: "3600000",
};

const VARIABLE = /\$\{(\w+)(?::\w+)?\}|\[\[(\w+)(?::\w+)?\]\]|\$(\w+)/g;

/**
 * Every panel query of the dashboard with `$var`, `${var}` and `[[var]]` replaced.
 * Dashboard variables default to `.*` (their "All" value, always used in `=~` matchers);
 * Grafana's globals default to values for a 15s scrape interval; `vars` overrides both.
 * Throws on a variable that neither defines, so a new variable cannot slip through unsubstituted.
 */
export function dashboardQueries(vars: Record<string, string>): Array<{ panel: string; expr: string }> {
  const dashboard = loadDashboard();
  const values: Record<string, string> = { ...BUILTIN_DEFAULTS };
  for (const v of dashboard.templating.list) {
    if (v.type !== "datasource") values[v.name] = ".*";
  }
  Object.assign(values, vars);

  const out: Array<{ panel: string; expr: string }> = [];
  for (const panel of allPanels(dashboard)) {
    for (const target of panel.targets ?? []) {
      if (target.expr === undefined) continue;
      const expr = target.expr.replace(VARIABLE, (match, a?: string, b?: string, c?: string) => {
        const name = a ?? b ?? c ?? "";
        const value = values[name];
        if (value === undefined) {
          throw new Error(`panel "${panel.title}": no value for variable ${match} in ${target.expr}`);
        }
        return value;
      });
      out.push({ panel: panel.title, expr });
    }
  }
  return out;
}
