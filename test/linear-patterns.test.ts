// Patterns run on what clients and the venue send match in time linear in their input: a long run of digits that
// ends in a letter costs microseconds, not the quadratic seconds of a pattern that can split the run anywhere.

import { describe, expect, it } from "vitest";
import { scrapeBudgetSeconds } from "../src/http/scrape-budget.js";
import { fields, redactor } from "./helpers/redactor.js";

const POLICY = { defaultTimeoutSeconds: 10, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 60 };

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

describe("patterns on outside input", () => {
  it("X-Prometheus-Scrape-Timeout-Seconds: 100,000 digits and an x are refused in well under 50 ms", () => {
    const header = `${"1".repeat(100_000)}x`;
    let answer: number | string = 0;
    // A quadratic pattern takes about a minute here (1.6 s at 16,000 digits).
    expect(timed(() => (answer = scrapeBudgetSeconds(header, POLICY)))).toBeLessThan(50);
    expect(answer).toBe("X-Prometheus-Scrape-Timeout-Seconds: expected a positive number of seconds");
    expect(scrapeBudgetSeconds(`${"0".repeat(100_000)}2`, POLICY)).toBe(1.5);
    expect(scrapeBudgetSeconds("10.", POLICY)).toBe(9.5);
    expect(scrapeBudgetSeconds("1e1", POLICY)).toBe(9.5);
  });

  it("a venue's numbers: 2,000 of 399 digits and an x are refused in well under 200 ms, and valid spellings still read", () => {
    const crafted = `${"9".repeat(399)}x`;
    expect(
      timed(() => {
        for (let i = 0; i < 2000; i++) expect(fields.number(crafted)).toBeUndefined();
      }),
    ).toBeLessThan(200);
    for (const [text, value] of [
      ["12", 12],
      ["12.", 12],
      ["12.50", 12.5],
      [".5", 0.5],
      ["-3e2", -300],
      [" 7 ", 7],
    ] as const) {
      expect(fields.number(text), text).toBe(value);
    }
    for (const text of ["", ".", "1.2.3", "e5", "1e", "0x10", "Infinity"]) expect(fields.number(text), text).toBeUndefined();
  });

  it("a venue string of 100,000 characters of escapes that almost decode is redacted in well under 200 ms", () => {
    redactor.hold(["Kp2Wm9Xv-zq7L-41hd"]);
    for (const crafted of ["%4".repeat(50_000), "&#x4b".repeat(20_000), "&#1234567".repeat(11_111), "%4b".repeat(33_333)]) {
      let read: string | undefined;
      expect(timed(() => (read = fields.id(crafted)))).toBeLessThan(200);
      expect(read).toBe(crafted);
    }
  });
});
