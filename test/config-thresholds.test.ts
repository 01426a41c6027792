// The alert thresholds of the config file: a top-level `thresholds:` map over the one table of defaults, each
// account's map over that, checked as merged with one line per problem; the environment alone keeps the defaults.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { configFromEnv } from "./helpers/env-config.js";
import { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, THRESHOLDS } from "../src/config/threshold-table.js";
import { configFromObject, loadConfigFile } from "./helpers/config-files.js";

const account = (name: string, thresholds?: unknown) => ({
  name,
  collateral_ids: ["USDC"],
  auth: { type: "none" },
  ...(thresholds === undefined ? {} : { thresholds }),
});
const load = (data: Record<string, unknown>) => configFromObject({ venue: { base_url: "http://venue.test" }, ...data }, {}, process.cwd());

function problems(data: Record<string, unknown>): readonly string[] {
  try {
    load(data);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("no ConfigError was thrown");
}

describe("the table of defaults", () => {
  it("holds the keys the issue names at their values, each a ratio in (0, 1] or seconds, each warning before its critical", () => {
    expect(DEFAULT_THRESHOLDS).toMatchObject({
      margin_ratio_warning: 0.8,
      margin_ratio_critical: 0.9,
      liquidation_distance_warning: 0.1,
      liquidation_distance_critical: 0.05,
    });
    for (const key of THRESHOLD_KEYS) {
      const spec = THRESHOLDS[key];
      if (spec.unit === "ratio") expect(spec.default > 0 && spec.default <= 1, key).toBe(true);
      else expect(key.endsWith("_seconds"), key).toBe(true);
    }
  });
});

describe("thresholds in the config file", () => {
  it("override single keys of one account: a's own 0.4 and 0.5, b at the defaults", () => {
    const config = load({ accounts: [account("a", { margin_ratio_warning: 0.4, margin_ratio_critical: 0.5 }), account("b")] });
    const [a, b] = config.accounts;
    expect(a?.thresholds).toEqual({ ...DEFAULT_THRESHOLDS, margin_ratio_warning: 0.4, margin_ratio_critical: 0.5 });
    expect(b?.thresholds).toEqual(DEFAULT_THRESHOLDS);
  });

  it("take the top-level map as every account's defaults, under each account's own keys", () => {
    const config = load({
      thresholds: { liquidation_distance_warning: 0.2, active_order_age_warning_seconds: 600 },
      accounts: [account("a", { liquidation_distance_warning: 0.15 }), account("b")],
    });
    expect(config.accounts.map((a) => [a.thresholds.liquidation_distance_warning, a.thresholds.active_order_age_warning_seconds])).toEqual([
      [0.15, 600],
      [0.2, 600],
    ]);
  });

  it("are the defaults for the environment-only account", () => {
    const config = configFromEnv({ TRADING_BASE_URL: "http://venue.test", TRADING_COLLATERAL_IDS: "USDC", TRADING_AUTH_TYPE: "none" });
    expect(config.accounts[0]?.thresholds).toEqual(DEFAULT_THRESHOLDS);
  });

  it("are checked after the merge, every problem one line, in file order", () => {
    expect(
      problems({
        thresholds: { margin_ratio_warnin: 0.7, size_limit_warning: 1.5 },
        accounts: [
          account("a", { margin_ratio_critical: 0.5 }),
          account("b", { margin_ratio_warning: 0.95 }),
          account("c", { margin_ratio_warning: 0.9, margin_ratio_critical: 0.85 }),
          account("d", { liquidation_distance_critical: 0.2 }),
          account("e", { liquidation_distance_warning: "10%", margin_ratio_critical: 0, active_order_age_warning_seconds: -1 }),
          account("f", { margin_ratio_critcal: 0.5 }),
          account("g", [0.5]),
        ],
      }),
    ).toEqual([
      "thresholds.margin_ratio_warnin: unknown key (did you mean margin_ratio_warning?)",
      "thresholds.size_limit_warning: must be a ratio above 0 and at most 1 (0.8 is 80 %)",
      "accounts[0].thresholds.margin_ratio_critical: 0.5 is not above the margin_ratio_warning it inherits (0.8): set accounts[0].thresholds.margin_ratio_warning too, below 0.5",
      "accounts[1].thresholds.margin_ratio_warning: 0.95 is not below the margin_ratio_critical it inherits (0.9): set accounts[1].thresholds.margin_ratio_critical too, above 0.95",
      "accounts[2].thresholds.margin_ratio_warning: 0.9 must be below accounts[2].thresholds.margin_ratio_critical (0.85): a warning comes before its critical",
      "accounts[3].thresholds.liquidation_distance_critical: 0.2 is not below the liquidation_distance_warning it inherits (0.1): set accounts[3].thresholds.liquidation_distance_warning too, above 0.2",
      "accounts[4].thresholds.liquidation_distance_warning: expected a number",
      "accounts[4].thresholds.margin_ratio_critical: must be a ratio above 0 and at most 1 (0.8 is 80 %)",
      "accounts[4].thresholds.active_order_age_warning_seconds: must be seconds above 0 and at most 31536000",
      "accounts[5].thresholds.margin_ratio_critcal: unknown key (did you mean margin_ratio_critical?)",
      "accounts[6].thresholds: expected a mapping of margin_ratio_warning, margin_ratio_critical, margin_usage_warning, margin_usage_critical, margin_ratio_horizon_seconds, margin_usage_horizon_seconds, liquidation_distance_warning, liquidation_distance_critical, size_limit_warning, active_order_age_warning_seconds",
    ]);
  });

  it("judge an account's order against what it inherits from the file's own defaults", () => {
    const top = { margin_ratio_warning: 0.3, margin_ratio_critical: 0.4 };
    expect(load({ thresholds: top, accounts: [account("a", { margin_ratio_critical: 0.35 })] }).accounts[0]?.thresholds).toMatchObject({
      margin_ratio_warning: 0.3,
      margin_ratio_critical: 0.35,
    });
    expect(problems({ thresholds: top, accounts: [account("a", { margin_ratio_critical: 0.25 })] })).toEqual([
      "accounts[0].thresholds.margin_ratio_critical: 0.25 is not above the margin_ratio_warning it inherits (0.3): set accounts[0].thresholds.margin_ratio_warning too, below 0.25",
    ]);
  });

  it("are every key at its default in the example file, with one account's own", () => {
    const config = loadConfigFile(new URL("../examples/trading-exporter.yml", import.meta.url).pathname, { HEDGE_TOKEN: "t" });
    expect(config.accounts.map((a) => [a.name, a.thresholds.margin_ratio_critical])).toEqual([
      ["main", 0.9],
      ["hedge", 0.5],
      ["ops", 0.9],
      ["sandbox", 0.9],
    ]);
    const text = readFileSync(new URL("../examples/trading-exporter.yml", import.meta.url), "utf8");
    for (const key of THRESHOLD_KEYS) expect(text, key).toMatch(new RegExp(`^  ${key}: ${DEFAULT_THRESHOLDS[key]} `, "m"));
  });
});
