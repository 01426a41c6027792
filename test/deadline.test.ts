import { afterEach, describe, expect, it, vi } from "vitest";
import { Deadline } from "../src/util/deadline.js";

describe("Deadline", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps its time left when the wall clock steps an hour either way", () => {
    let wall = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => wall);
    const deadline = new Deadline(10);
    for (const step of [3_600_000, -7_200_000]) {
      wall += step;
      expect(deadline.remainingMs()).toBeGreaterThan(5_000);
      expect(deadline.remainingMs()).toBeLessThanOrEqual(10_000);
    }
  });

  it("counts down on the monotonic clock", () => {
    let monotonic = performance.now();
    vi.spyOn(performance, "now").mockImplementation(() => monotonic);
    const deadline = new Deadline(10);
    monotonic += 4_000;
    expect(deadline.remainingMs()).toBeCloseTo(6_000, 6);
    monotonic += 7_000;
    expect(deadline.remainingMs()).toBe(0);
  });
});
