// Exact decimal arithmetic: sums, products and ratios of the venue's numbers as written.

import { describe, expect, it } from "vitest";
import { ExactSum, exactProduct, fromNumber, quotient, toNumber } from "../src/util/decimal.js";

describe("ExactSum", () => {
  it("adds decimals exactly where doubles would not", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(new ExactSum().add(0.1).add(0.2).value).toBe(0.3);
  });

  it("keeps integers on the fast path and mixes them with fractions", () => {
    expect(new ExactSum().add(1).add(2).value).toBe(3);
    expect(new ExactSum().add(1).add(0.1).add(2).add(0.2).value).toBe(3.3);
  });

  it("handles exponent forms and negatives", () => {
    expect(new ExactSum().add(1e-7).add(2e-7).value).toBe(3e-7);
    expect(new ExactSum().add(1e21).add(-1e21).add(0.5).value).toBe(0.5);
  });

  it("sums products exactly", () => {
    expect(59000.1 * 0.1 + 58000.2 * 0.2).not.toBe(17500.05);
    expect(new ExactSum().addProduct(59000.1, 0.1).addProduct(58000.2, 0.2).value).toBe(17500.05);
    expect(exactProduct(0.1, 60000.5)).toBe(6000.05);
  });
});

describe("quotient", () => {
  it("divides the decimals as written", () => {
    expect((60000.5 - 48600.405) / 60000.5).not.toBe(0.19);
    expect(quotient(fromNumber(11400.095), fromNumber(60000.5))).toBe(0.19);
    expect(quotient(fromNumber(1), fromNumber(3))).toBe(1 / 3);
    expect(quotient(fromNumber(-2), fromNumber(8))).toBe(-0.25);
  });

  it("is undefined for a zero divisor", () => {
    expect(quotient(fromNumber(1), fromNumber(0))).toBeUndefined();
  });

  it("round-trips through fromNumber and toNumber", () => {
    for (const n of [0, 1, -1, 0.1, 123.456, 1e-12, 9007199254740993, 1.7976931348623157e308]) {
      expect(toNumber(fromNumber(n))).toBe(n);
    }
  });
});
