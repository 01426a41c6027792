// Places given in arrival order: the answer slots of --web.max-requests and the collections at the venue at once.

import { describe, expect, it } from "vitest";
import { Places } from "../src/util/places.js";

describe("Places", () => {
  it("gives a freed place to the first waiter, in arrival order, and is free again once all are given up", async () => {
    const places = new Places(1);
    await places.acquire();
    const order: string[] = [];
    const first = places.acquire().then(() => order.push("first"));
    const second = places.acquire().then(() => order.push("second"));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Both wait while the one place is held.
    expect(order).toEqual([]);
    places.release();
    await first;
    expect(order).toEqual(["first"]);
    places.release();
    await second;
    expect(order).toEqual(["first", "second"]);
    places.release();
    // Free again: the next is given a place at once.
    let third = false;
    await places.acquire().then(() => {
      third = true;
    });
    expect(third).toBe(true);
  });

  it("runs work in a place and gives it up when the work fails", async () => {
    const places = new Places(1);
    await expect(places.run(() => Promise.reject(new Error("bug")))).rejects.toThrow("bug");
    // Given up: the one place is there for the next.
    expect(await places.run(() => 7)).toBe(7);
  });

  it("never holds more than its places at once", async () => {
    const places = new Places(3);
    let busy = 0;
    let most = 0;
    const work = () =>
      places.run(async () => {
        busy++;
        most = Math.max(most, busy);
        await new Promise<void>((resolve) => setImmediate(resolve));
        busy--;
      });
    await Promise.all(Array.from({ length: 20 }, work));
    expect(most).toBe(3);
  });
});
