// The page's time-to-liquidation: the trend of a collateral's figure as the rules judge it, from samples it keeps
// once a minute for 30 minutes.

import { describe, expect, it } from "vitest";
import { MarginTrend } from "../src/scrape/margin-trend.js";

/** A collection every 15 s from minute `from` to minute `to`, the margin ratio `ratio(minute)`. */
function feed(trend: MarginTrend, from: number, to: number, ratio: (minute: number) => number | undefined, usage = ratio): void {
  for (let s = from * 60; s <= to * 60; s += 15) trend.observe(s, [{ collateralId: "USDC", ratio: ratio(s / 60), usage: usage(s / 60) }]);
}

describe("MarginTrend", () => {
  it("reads a ratio rising 1 point a minute from 30 % as 30 minutes from liquidation at 70 %", () => {
    const trend = new MarginTrend();
    feed(trend, 0, 40, (m) => 0.3 + m / 100);
    expect(trend.secondsToOne("USDC", "ratio", 2400)).toBeCloseTo(1800, 3);
    expect(trend.secondsToOne("USDC", "usage", 2400)).toBeCloseTo(1800, 3);
    expect(trend.secondsToOne("USDT", "ratio", 2400)).toBeUndefined();
  });

  it("gives nothing for a flat, a falling or a past-1 figure, nor before 10 minutes of samples", () => {
    const flat = new MarginTrend();
    feed(flat, 0, 40, () => 0.7);
    expect(flat.secondsToOne("USDC", "ratio", 2400)).toBeUndefined();
    const falling = new MarginTrend();
    feed(falling, 0, 40, (m) => 0.7 - m / 100);
    expect(falling.secondsToOne("USDC", "ratio", 2400)).toBeUndefined();
    const past = new MarginTrend();
    feed(past, 0, 40, (m) => 0.9 + m / 100);
    expect(past.secondsToOne("USDC", "ratio", 2400)).toBeUndefined();
    // A ratio of +Inf (total margin gone with positions open) ends the trend before it: no time to liquidation is left.
    const wiped = new MarginTrend();
    feed(wiped, 0, 40, (m) => 0.3 + m / 100);
    wiped.observe(2415, [{ collateralId: "USDC", ratio: Number.POSITIVE_INFINITY, usage: undefined }]);
    expect(wiped.secondsToOne("USDC", "ratio", 2415)).toBeUndefined();
    expect(wiped.secondsToOne("USDC", "usage", 2415)).toBeCloseTo(1800, 3);
    const young = new MarginTrend();
    feed(young, 0, 9, (m) => 0.3 + m / 100);
    expect(young.secondsToOne("USDC", "ratio", 540)).toBeUndefined();
    feed(young, 9.25, 11, (m) => 0.3 + m / 100);
    expect(young.secondsToOne("USDC", "ratio", 660)).toBeCloseTo((1 - 0.41) * 6000, 3);
  });

  it("reads the lesser of the 30 and the 10 minutes' trend, so a jump stops counting 10 minutes after it", () => {
    const trend = new MarginTrend();
    feed(trend, 0, 20, () => 0.3);
    feed(trend, 20.25, 40, () => 0.6);
    // The 30 minutes see the jump as a rise, the last 10 a flat line: no estimate.
    expect(trend.secondsToOne("USDC", "ratio", 2400)).toBeUndefined();
  });

  it("judges a fast pace of collections as a slow one, and forgets a collateral not reported for 30 minutes", () => {
    const trend = new MarginTrend();
    for (let s = 0; s <= 7_200; s += 1) trend.observe(s, [{ collateralId: "USDC", ratio: 0.3 + s / 1e5, usage: undefined }]);
    expect(trend.secondsToOne("USDC", "ratio", 7_200)).toBeCloseTo((1 - 0.372) * 1e5, 0);
    expect(trend.secondsToOne("USDC", "usage", 7_200)).toBeUndefined();
    trend.observe(7_200 + 1_801, [{ collateralId: "USDT", ratio: 0.5, usage: 0.5 }]);
    feed(trend, (7_200 + 1_801) / 60, (7_200 + 1_801) / 60 + 11, () => undefined);
    expect(trend.secondsToOne("USDC", "ratio", 7_200 + 1_801 + 660)).toBeUndefined();
  });
});
