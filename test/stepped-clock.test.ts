// Waits are measured on a monotonic clock: a wall clock stepped back an hour neither stretches the venue's
// Retry-After nor holds the log limiter's next line back.

import { afterEach, describe, expect, it, vi } from "vitest";
import { LineRateLimit } from "../src/endpoint-health.js";
import { type ClockedExporter, START_MS, startClockedExporter } from "./helpers/clocked-exporter.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { ACCOUNT } from "./helpers/tiny-venue.js";

const HOUR_MS = 3_600_000;

let rig: ClockedExporter | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await rig?.close();
  rig = undefined;
});

describe("a wall clock stepped back an hour", () => {
  it("leaves the log limiter's window as long as it was", () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    const limit = new LineRateLimit();
    expect(limit.take("failing")).toBe(0);
    vi.setSystemTime(Date.now() - HOUR_MS);
    vi.advanceTimersByTime(30_000);
    expect(limit.take("failing")).toBeUndefined();
    vi.advanceTimersByTime(40_000);
    expect(limit.take("failing")).toBe(1);
  });

  it("leaves the venue's Retry-After as long as it was", async () => {
    rig = await startClockedExporter();
    rig.venue.options.raw = { [ACCOUNT]: { status: 429, headers: { "retry-after": "30" }, body: "slow down" } };
    // performance.now() alone is faked: the servers keep their real timers.
    vi.useFakeTimers({ toFake: ["performance"] });
    await (await rig.get("/probe?target=acct")).text();
    expect(rig.venue.requests.get(ACCOUNT)).toBe(1);
    delete rig.venue.options.raw;
    rig.clock.now = START_MS - HOUR_MS;
    vi.advanceTimersByTime(10_000);
    // The venue is not asked again while its 30 s last, though the wall clock says they end in an hour and a half.
    await (await rig.get("/probe?target=acct")).text();
    expect(rig.venue.requests.get(ACCOUNT)).toBe(1);
    vi.advanceTimersByTime(21_000);
    rig.clock.now += 21_000;
    const answer = parseExposition(await (await rig.get("/probe?target=acct")).text());
    expect(rig.venue.requests.get(ACCOUNT)).toBe(2);
    expect(valueOf(answer, "trading_scrape_success", { account: "acct", endpoint: "account_info" })).toBe(1);
  });
});
