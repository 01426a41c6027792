// The metrics-table reader (docs/metrics.md) the e2e and dashboard tests rely on: it resolves `same` and refuses what it cannot read.
import { describe, expect, it } from "vitest";
import { parseMetricsTable, readmeMetrics } from "./helpers/readme-metrics.js";

const table = (...rows: string[]) =>
  ["# t", "", "## Metrics", "", "Intro.", "", "| metric | labels | meaning |", "|---|---|---|", ...rows, "", "More text.", "", "## Next", ""].join("\n");

describe("parseMetricsTable", () => {
  it("reads names and labels, resolving `same` and empty cells, and stops at the table's end", () => {
    expect(
      parseMetricsTable(
        table("| `a_total` | `endpoint`, `code` | Counter. |", "| `b` | same | \\|x − y\\| / x. |", "| `c` | | Always 1. |", "| `d` | same | Also none. |"),
      ),
    ).toEqual([
      { name: "a_total", labels: ["endpoint", "code"] },
      { name: "b", labels: ["endpoint", "code"] },
      { name: "c", labels: [] },
      { name: "d", labels: [] },
    ]);
  });

  it.each([
    ["no section", "# t\n\n| metric | labels | meaning |\n|---|---|---|\n| `a` | | x |\n", /no "## Metrics" section/],
    ["no table", "## Metrics\n\nText only.\n", /has no "\| metric \| labels \| meaning \|" table/],
    ["a table in another section", "## Metrics\n\nText.\n\n## Other\n\n| metric | labels | meaning |\n|---|---|---|\n| `a` | | x |\n", /has no/],
    ["no separator", "## Metrics\n\n| metric | labels | meaning |\n| `a` | | x |\n", /separator/],
    ["no rows", table(), /has no rows/],
    ["a name not in backticks", table("| a | | x |"), /line 9: cannot read the metric name "a"/],
    ["a label not in backticks", table("| `a` | endpoint | x |"), /line 9: cannot read label "endpoint"/],
    ["same on the first row", table("| `a` | same | x |"), /line 9: labels "same" on the first row/],
    ["a missing cell", table("| `a` | x |"), /line 9: a metrics table row needs 3 cells, has 2/],
    ["a row twice", table("| `a` | | x |", "| `a` | | y |"), /line 10: a is documented twice/],
  ])("throws on %s", (_case, markdown, message) => {
    expect(() => parseMetricsTable(markdown)).toThrow(message);
  });
});

describe("readmeMetrics", () => {
  it("reads the repository's table in docs/metrics.md", () => {
    const families = new Map(readmeMetrics().map((f) => [f.name, f.labels]));
    expect(families.size).toBeGreaterThan(50);
    expect(families.get("trading_up")).toEqual(["account"]);
    expect(families.get("trading_position_liquidation_distance_ratio")).toEqual(["account", "collateral_id", "market_id", "direction"]);
    expect(families.get("trading_exporter_series_dropped_total")).toEqual([]);
    for (const name of families.keys()) expect(name).toMatch(/^trading_/);
  });
});
