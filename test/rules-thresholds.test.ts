// The shipped rules read each account's thresholds from its series, and fall back to the one table of defaults
// (src/config/threshold-table.ts): every fallback in the rule file is held to that table, so there is no hand-kept copy.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, THRESHOLDS, type ThresholdKey } from "../src/config/threshold-table.js";
import { RULES_FILE } from "./helpers/prometheus.js";

const TEXT = readFileSync(RULES_FILE, "utf8");
type Rule = { alert?: string; record?: string; expr: string; annotations?: Record<string, string> };
const RULES = (parse(TEXT) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);

/**
 * A threshold read with its fallback: in an expression, `threshold="K"}[1m])) or DEFAULT * group by (account)
 * (last_over_time(SERIES[1m]))`; in a description's query, `threshold="K"}[1m])) or vector(DEFAULT)`.
 */
const READ =
  /(min|max)(?: by \(account\) )?\(last_over_time\(trading_account_alert_threshold(_seconds)?\{(?:account=%q,)?threshold="(\w+)"\}\[1m\]\)\)\s+or\s+(?:vector\(([0-9.]+)\)|([0-9.]+) \* group by \(account\) \(last_over_time\((\w+)\[1m\]\)\))/g;

interface Read {
  aggregation: string;
  seconds: boolean;
  key: string;
  fallback: number;
  series: string | undefined;
}

function reads(text: string): Read[] {
  return [...text.matchAll(READ)].map((m) => ({
    aggregation: m[1]!,
    seconds: m[2] !== undefined,
    key: m[3]!,
    fallback: Number(m[4] ?? m[5]),
    series: m[6],
  }));
}

describe("the shipped rules' thresholds", () => {
  it("read every threshold with a fallback that is the table's default, from the family of its unit, the stricter of two targets", () => {
    const all = reads(TEXT);
    // Every read of the threshold families is one of these: none without its fallback.
    expect(all.length).toBe(TEXT.split('threshold="').length - 1);
    expect(all.length).toBeGreaterThan(2 * THRESHOLD_KEYS.length);
    for (const r of all) {
      const key = r.key as ThresholdKey;
      expect(THRESHOLD_KEYS, r.key).toContain(key);
      const spec = THRESHOLDS[key];
      expect(r.fallback, `${key}'s fallback`).toBe(DEFAULT_THRESHOLDS[key]);
      expect(r.seconds, `${key}'s family`).toBe(spec.unit === "seconds");
      expect(r.aggregation, `${key}: the stricter of two targets`).toBe(spec.fires === "above" ? "min" : "max");
      if (r.series !== undefined) expect(r.series, `${key}: the fallback's accounts come from the value's series`).toBe(spec.series);
    }
  });

  it("compare each alert of the table with its own threshold, in its expression and its description, and with no literal left", () => {
    const rule = (name: string) => RULES.find((r) => r.alert === name || r.record === name)!;
    for (const key of THRESHOLD_KEYS) {
      const spec = THRESHOLDS[key];
      const alert = rule(spec.alert);
      expect(alert, spec.alert).toBeDefined();
      // The liquidation tiers compare in the recording rule the alert reads.
      const tier = /trading:position_liquidation_distance_ratio:(critical|warning)/.exec(alert.expr)?.[0];
      const compared = tier === undefined ? alert.expr : rule(tier).expr;
      const inExpr = reads(compared).filter((r) => r.series !== undefined);
      expect(
        inExpr.map((r) => r.key),
        spec.alert,
      ).toEqual(tier === undefined ? [key] : [key, key]);
      expect(compared, spec.alert).toContain(spec.series);
      // A sign check (`> 0`, a trend that rises) is no threshold.
      expect(compared.replace(READ, ""), `${spec.alert}: a comparison with a literal`).not.toMatch(/[<>]\s*(?!0\b)[0-9]/);
      expect(
        reads(alert.annotations?.description ?? "").map((r) => r.key),
        `${spec.alert}'s description`,
      ).toContain(key);
      // No percentage copied into the words, but the venue's own 100 %.
      const words = Object.values(alert.annotations ?? {}).join("\n");
      expect(words.replace(/100%/g, "").match(/\d+%/g) ?? [], spec.alert).toEqual([]);
    }
  });

  it("resolve each liquidation tier at 1.2 x its own threshold", () => {
    for (const tier of ["critical", "warning"]) {
      const expr = RULES.find((r) => r.record === `trading:position_liquidation_distance_ratio:${tier}`)!.expr;
      expect(expr).toMatch(/< on \(account\) group_left \(\)\s+1\.2 \* \(/);
      expect(expr).toMatch(new RegExp(`\\band\\s+trading:position_liquidation_distance_ratio:${tier}\\s*$`));
    }
  });
});
