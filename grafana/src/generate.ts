// Builds the dashboards from code and renders each as the JSON committed in grafana/dashboards (keys sorted, trailing newline).
import { accountDashboard } from "./account.js";
import { overviewDashboard } from "./overview.js";

/** File name under grafana/dashboards -> the dashboard as Grafana imports it. */
export function dashboards(): Record<string, unknown> {
  return {
    "trading-desk.json": numbered(overviewDashboard().build()),
    "trading-account.json": numbered(accountDashboard().build()),
  };
}

/** Grafana wants a unique id per panel; the SDK leaves ids to the caller: 1, 2, ... in layout order. */
function numbered<T extends { panels?: Array<{ id?: number }> }>(dashboard: T): T {
  (dashboard.panels ?? []).forEach((panel, i) => {
    panel.id = i + 1;
  });
  return dashboard;
}

/** Keys sorted at every level, so the files diff by content and not by the SDK's field order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/** The file's exact text. */
export function render(dashboard: unknown): string {
  return `${JSON.stringify(sortedKeys(dashboard), null, 2)}\n`;
}
