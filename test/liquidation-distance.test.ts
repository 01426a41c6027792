// The liquidation distance is signed by direction: how far the price may move against the position from its
// average execution price; negative when the liquidation price lies beyond the entry.

import { describe, expect, it } from "vitest";
import { liquidationDistance } from "../src/collectors/positions.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import type { Position } from "../src/venue/snapshot.js";
import { objectWalk } from "./helpers/fixtures.js";
import { fields } from "./helpers/redactor.js";

const position = (direction: string | undefined, avgExecutionPrice: number, liquidationPrice: number) =>
  ({ marketId: "M", direction, avgExecutionPrice, liquidationPrice }) as unknown as Position;

describe("liquidationDistance", () => {
  it.each([
    ["LONG", 100, 95, 0.05],
    ["LONG", 100, 105, -0.05],
    ["SHORT", 200, 210, 0.05],
    ["SHORT", 200, 190, -0.05],
    // The simulator's liquidation scenario: each position lives on unrealized gains.
    ["SHORT", 27.841, 27.678, -0.0058546747602456805],
    ["LONG", 6.477, 6.5688, -0.014173228346456693],
  ])("a %s at %d with its liquidation price at %d is %d", (direction, avg, liq, distance) => {
    expect(liquidationDistance(position(direction, avg, liq))).toBe(distance);
  });

  it("is unknown for a direction that is neither LONG nor SHORT, as for any unknown input", () => {
    for (const direction of ["BOTH", "long", "", undefined]) expect(liquidationDistance(position(direction, 100, 95)), String(direction)).toBeUndefined();
  });

  it.each(["LONG", "SHORT"])("is unknown for a %s whose liquidation price is 0 or below: venues send that when they have none", (direction) => {
    for (const liq of [0, -0, -5]) expect(liquidationDistance(position(direction, 100, liq)), String(liq)).toBeUndefined();
  });
});

describe("a liquidation price the venue does not give", () => {
  it("is counted as unset, never as invalid, and a 0 or below keeps its value for the raw series", async () => {
    const at = (liquidationPrice: unknown) => ({
      marketId: "M",
      direction: "SHORT",
      avgExecutionPrice: "6.477",
      ...(liquidationPrice === "absent" ? {} : { liquidationPrice }),
    });
    const reported: string[] = [];
    const info = await readAccountInfo(objectWalk({ positions: ["0", "-1", null, "absent", "6.5688", "soon"].map(at) }), fields, "USDT", (f) =>
      reported.push(f),
    );
    expect(info.positions.map((p) => p.liquidationPrice)).toEqual([0, -1, undefined, undefined, 6.5688, undefined]);
    expect(reported.filter((f) => f.includes("liquidationPrice")).sort()).toEqual(
      [...Array(4).fill("unset:positions[].liquidationPrice"), "positions[].liquidationPrice"].sort(),
    );
  });
});
