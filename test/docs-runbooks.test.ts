// docs/runbooks.md's table lists every alert of the shipped rules once, with the severity and `for` the rule has,
// each linked to its runbook.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT, readDoc } from "./helpers/markdown-docs.js";

interface Rule {
  alert?: string;
  for?: string;
  labels?: Record<string, string>;
}

const groups = (parse(readFileSync(join(REPO_ROOT, "prometheus/rules/trading.rules.yml"), "utf8")) as { groups: Array<{ rules: Rule[] }> }).groups;
const alerts = groups.flatMap((g) => g.rules).filter((r) => r.alert !== undefined);

/** The table rows of docs/runbooks.md: [alert, severity, for]. */
function rows(): Array<[string, string, string]> {
  return readDoc("docs/runbooks.md")
    .split("\n")
    .flatMap((line) => {
      const m = /^\| \[(\w+)\]\(\.\.\/runbooks\/(\w+)\.md\) \| `(\w+)` \| (\w+) \|/.exec(line);
      if (!m) return [];
      expect(m[2], `${m[1]} links to its own runbook`).toBe(m[1]);
      return [[m[1]!, m[3]!, m[4]!] as [string, string, string]];
    });
}

describe("docs/runbooks.md", () => {
  it("lists every alert of the rules once, with its severity and `for`", () => {
    expect(alerts.length).toBeGreaterThan(10);
    const table = rows();
    expect(table.map(([name]) => name).sort()).toEqual(alerts.map((a) => a.alert!).sort());
    for (const alert of alerts) {
      const [, severity, forText] = table.find(([name]) => name === alert.alert)!;
      expect(severity, alert.alert).toBe(alert.labels?.severity);
      expect(forText, alert.alert).toBe(alert.for ?? "0");
    }
  });
});
