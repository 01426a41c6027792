// Order ids read again take the previous read's strings: the ids stay what the venue sent, whatever
// arrived, left or moved between the reads, and the walk shares every id it can find a few orders ahead.

import { describe, expect, it } from "vitest";
import { shareIds } from "../src/venue/shared-ids.js";
import type { Order } from "../src/venue/snapshot.js";

/** Orders with ids made afresh (a new string each, as a new parse makes them). */
function orders(ids: ReadonlyArray<number | undefined>): Order[] {
  return ids.map((n) => ({ id: n === undefined ? undefined : `order-${String(n).padStart(8, "0")}` }) as Order);
}

const idsOf = (list: readonly Order[]) => list.map((o) => o.id);

/** A small deterministic generator, so a failure repeats. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

describe("order ids shared with the previous read", () => {
  it("shares every id of a history that moved on by new orders at its head, and changes none", () => {
    const previous = orders(Array.from({ length: 200 }, (_, i) => 1000 - i));
    const current = orders([1002, 1001, ...Array.from({ length: 198 }, (_, i) => 1000 - i)]);
    const want = idsOf(current);
    expect(shareIds(current, previous)).toBe(198);
    expect(idsOf(current)).toEqual(want);
  });

  it("keeps every id as sent whatever arrived, left or has no id, and shares every id both reads hold", () => {
    const next = random(11);
    for (let round = 0; round < 200; round++) {
      const before = Array.from({ length: next(60) }, (_, i) => i * 10);
      // Some leave (never more than three in a row, fewer than the walk looks ahead), some arrive anywhere, some without an id.
      const after: Array<number | undefined> = [];
      let left = 0;
      for (const id of before) {
        if (left < 3 && next(5) === 0) {
          left++;
          continue;
        }
        left = 0;
        if (next(6) === 0) after.push(next(2) === 0 ? undefined : 100_000 + next(1000));
        after.push(id);
      }
      const current = orders(after);
      const want = idsOf(current);
      const both = after.filter((id) => id !== undefined && id < 100_000).length;
      expect(shareIds(current, orders(before))).toBe(both);
      expect(idsOf(current)).toEqual(want);
    }
  });

  it("shares nothing and changes nothing for a list in another order or of other orders", () => {
    const previous = orders(Array.from({ length: 100 }, (_, i) => i));
    const reversed = orders(Array.from({ length: 100 }, (_, i) => 99 - i));
    const want = idsOf(reversed);
    // Only the orders a few places from where the walk looks are found: far fewer than the hundred.
    expect(shareIds(reversed, previous)).toBeLessThan(10);
    expect(idsOf(reversed)).toEqual(want);
    const other = orders(Array.from({ length: 100 }, (_, i) => 500 + i));
    expect(shareIds(other, previous)).toBe(0);
    expect(idsOf(other)).toEqual(idsOf(orders(Array.from({ length: 100 }, (_, i) => 500 + i))));
  });
});
