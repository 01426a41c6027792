// The in-flight limit's slots: a bounded line of waiting scrapes, served in order, refused after their wait.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ScrapeSlots } from "../src/http/scrape-slots.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ScrapeSlots", () => {
  it("gives a freed slot to the first scrape waiting, refuses one whose wait ran out and one past the line", async () => {
    const slots = new ScrapeSlots(1, 2);
    expect(slots.hasFree()).toBe(true);
    expect(await slots.acquire(1000)).toBe(true);
    // A scrape arriving now would wait: it judges its collection's freshness from its arrival.
    expect(slots.hasFree()).toBe(false);
    const first = slots.acquire(1000);
    const second = slots.acquire(100);
    expect(await slots.acquire(1000)).toBe(false); // the line is full
    await vi.advanceTimersByTimeAsync(100);
    expect(await second).toBe(false);
    slots.release();
    expect(await first).toBe(true);
    expect(slots.hasFree()).toBe(false);
    slots.release();
    expect(slots.hasFree()).toBe(true);
    // Free again: taken at once, even with no time to wait.
    expect(await slots.acquire(0)).toBe(true);
    expect(await slots.acquire(0)).toBe(false);
  });

  it("with no line, refuses a scrape past the limit at once, whatever time it could wait", async () => {
    const slots = new ScrapeSlots(1, 0);
    expect(await slots.acquire(1000)).toBe(true);
    // Resolved without any timer firing: refused at once, not after its wait.
    expect(await slots.acquire(1000)).toBe(false);
    slots.release();
    expect(await slots.acquire(1000)).toBe(true);
  });
});
