// The single-field readers: what counts as a number, a label, a flag and a timestamp.

import { describe, expect, it } from "vitest";
import { readFlag, readLabel, readNumber, readTimestampSeconds } from "../src/venue/fields.js";

describe("readNumber", () => {
  it.each([
    ["12.5", 12.5],
    [" 12.5 ", 12.5],
    ["-0.000001", -0.000001],
    ["1e3", 1000],
    [".5", 0.5],
    ["10000.123456", 10000.123456],
    [42, 42],
    [-1.25, -1.25],
  ])("reads %j as %d", (input, expected) => {
    expect(readNumber(input)).toBe(expected);
  });

  it.each([["NaN"], ["Infinity"], ["-Infinity"], ["0x10"], [""], ["  "], ["1,000"], ["abc"], [true], [null], [{}], [[]], ["1e400"], [undefined]])(
    "rejects %j",
    (input) => {
      expect(readNumber(input)).toBeUndefined();
    },
  );
});

describe("readTimestampSeconds", () => {
  const seconds = 1_763_776_000;
  it.each([
    ["seconds", seconds, seconds],
    ["milliseconds", seconds * 1e3 + 123, seconds + 0.123],
    ["microseconds", seconds * 1e6, seconds],
    ["nanoseconds", seconds * 1e9, seconds],
    ["a decimal string of ms", `${seconds * 1e3}`, seconds],
  ])("recognises %s by magnitude", (_unit, input, expected) => {
    expect(readTimestampSeconds(input)).toBeCloseTo(expected, 3);
  });

  it("treats zero and negative as not set", () => {
    expect(readTimestampSeconds(0)).toBeUndefined();
    expect(readTimestampSeconds(-5)).toBeUndefined();
  });
});

describe("readLabel and readFlag", () => {
  it("accepts strings and numbers as labels, not empties or objects", () => {
    expect(readLabel("BTC-USD")).toBe("BTC-USD");
    expect(readLabel(42)).toBe("42");
    expect(readLabel("")).toBeUndefined();
    expect(readLabel({ id: 1 })).toBeUndefined();
  });

  it("accepts booleans and their string forms", () => {
    expect(readFlag(true)).toBe(true);
    expect(readFlag("false")).toBe(false);
    expect(readFlag(1)).toBeUndefined();
  });
});
