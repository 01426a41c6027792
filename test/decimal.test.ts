// Exact decimal arithmetic: sums, products and ratios of the venue's numbers as written.

import fc from "fast-check";
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
    for (const n of [0, 1, -1, 0.1, 123.456, 1e-12, 2 ** 53 + 2, 1.7976931348623157e308]) {
      expect(toNumber(fromNumber(n))).toBe(n);
    }
  });
});

describe("ExactSum against BigInt arithmetic on the decimal text", () => {
  /** A decimal as text from a mantissa and a scale, e.g. (12345, 2) -> "123.45". */
  const decimal = fc.tuple(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }), fc.integer({ min: 0, max: 12 }));
  const text = ([m, k]: [bigint, number]) => (k === 0 ? `${m}` : `${m}e-${k}`);

  function reference(terms: Array<[bigint, number]>, products: boolean): number {
    // Exact sum of the doubles as written (their shortest decimal), rounded once.
    const read = (t: [bigint, number]) => fromNumber(Number(text(t)));
    let total = { mantissa: 0n, scale: 0 };
    const addD = (a: { mantissa: bigint; scale: number }, b: { mantissa: bigint; scale: number }) => {
      const scale = Math.max(a.scale, b.scale);
      return { mantissa: a.mantissa * 10n ** BigInt(scale - a.scale) + b.mantissa * 10n ** BigInt(scale - b.scale), scale };
    };
    for (let i = 0; i < terms.length; i += products ? 2 : 1) {
      const x = read(terms[i]!);
      const y = products ? read(terms[i + 1] ?? [1n, 0]) : { mantissa: 1n, scale: 0 };
      total = addD(total, { mantissa: x.mantissa * y.mantissa, scale: x.scale + y.scale });
    }
    return toNumber(total);
  }

  it("sums exactly", () => {
    fc.assert(
      fc.property(fc.array(decimal, { maxLength: 30 }), (terms) => {
        const sum = new ExactSum();
        for (const t of terms) sum.add(Number(text(t)));
        expect(sum.value).toBe(reference(terms, false));
      }),
      { numRuns: 500 },
    );
  });

  it("sums products exactly", () => {
    fc.assert(
      fc.property(fc.array(decimal, { maxLength: 30 }), (terms) => {
        const sum = new ExactSum();
        for (let i = 0; i < terms.length; i += 2) sum.addProduct(Number(text(terms[i]!)), Number(text(terms[i + 1] ?? [1n, 0])));
        expect(sum.value).toBe(reference(terms, true));
      }),
      { numRuns: 500 },
    );
  });
});
