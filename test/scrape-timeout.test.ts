// Prometheus's scrape-timeout header: every decimal spelling of one number is the same budget, and what is no
// positive number is refused alike.

import { describe, expect, it } from "vitest";
import { scrapeBudgetSeconds } from "../src/http/scrape-budget.js";

const POLICY = { defaultTimeoutSeconds: 10, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 60 };

describe("X-Prometheus-Scrape-Timeout-Seconds", () => {
  it.each([
    ["1000000000", "1e9", "1E9", "1e+9", "1000000000.0", "0.1e10"],
    ["10", "10.", "10.0", "1e1", "1E+1", "100e-1"],
    ["0.5", ".5", "5e-1", "0.50"],
  ])("reads %s and its other spellings as one budget", (...spellings) => {
    const budgets = spellings.map((text) => scrapeBudgetSeconds(text, POLICY));
    expect(typeof budgets[0]).toBe("number");
    expect(new Set(budgets).size).toBe(1);
  });

  it.each(["soon", "", "-1", "0", "0e5", "1e-400", "Infinity", "0x10", "+10", "1e", "1.2.3", "NaN"])("refuses %j", (text) => {
    expect(scrapeBudgetSeconds(text, POLICY)).toBe("X-Prometheus-Scrape-Timeout-Seconds: expected a positive number of seconds");
  });
});
