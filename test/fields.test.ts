// The single-field readers: what counts as a number, a label, a flag and a timestamp.

import { describe, expect, it } from "vitest";
import { readFlag } from "../src/venue/fields.js";
import { fields } from "./helpers/redactor.js";

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
    expect(fields.number(input)).toBe(expected);
  });

  it.each([["NaN"], ["Infinity"], ["-Infinity"], ["0x10"], [""], ["  "], ["1,000"], ["abc"], [true], [null], [{}], [[]], ["1e400"], [undefined]])(
    "rejects %j",
    (input) => {
      expect(fields.number(input)).toBeUndefined();
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
    expect(fields.timestampSeconds(input)).toBeCloseTo(expected, 3);
  });

  it("treats zero and negative as not set", () => {
    expect(fields.timestampSeconds(0)).toBeUndefined();
    expect(fields.timestampSeconds(-5)).toBeUndefined();
  });
});

describe("readLabel and readFlag", () => {
  it("accepts strings and numbers as labels, not empties or objects, which are reported", () => {
    const reported: string[] = [];
    const report = (field: string): void => void reported.push(field);
    expect(fields.label("BTC-USD", "a", report)).toBe("BTC-USD");
    expect(fields.label(42, "b", report)).toBe("42");
    expect(fields.label("", "c", report)).toBeUndefined();
    expect(fields.label({ id: 1 }, "d", report)).toBeUndefined();
    expect(reported).toEqual(["c", "d"]);
  });

  it("replaces bidirectional controls and reports the field, keeping the rest of the text", () => {
    const reported: string[] = [];
    const report = (field: string): void => void reported.push(field);
    const controls = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"];
    for (const c of controls) expect(fields.label(`BTC-USD${c} GNOL`, "marketId", report)).toBe("BTC-USD\uFFFD GNOL");
    expect(reported).toEqual(controls.map(() => "marketId"));
    // Right-to-left text itself is no control: it stays as sent, and is not reported.
    expect(fields.label("\u05E9\u05D5\u05E7", "marketId", report)).toBe("\u05E9\u05D5\u05E7");
    expect(reported).toHaveLength(controls.length);
  });

  it("accepts booleans and their string forms", () => {
    expect(readFlag(true)).toBe(true);
    expect(readFlag("false")).toBe(false);
    expect(readFlag(1)).toBeUndefined();
  });
});
