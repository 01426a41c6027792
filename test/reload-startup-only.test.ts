// A reload that changes a start-up-only setting keeps the old value and says so, naming the setting.

import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { simEnv, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("reload", () => {
  it("warns of start-up-only settings that changed, and keeps serving with the old limits", async () => {
    let maxInFlight = "40";
    stack = await startStack({
      source: (url) => configFromEnv(simEnv(url, { TRADING_COLLATERAL_IDS: "USDC", TRADING_MAX_IN_FLIGHT_SCRAPES: maxInFlight })),
    });
    expect((await stack.reload()).status).toBe(200);
    expect(stack.logs.filter((l) => l.includes("read at start-up only"))).toEqual([]);
    maxInFlight = "1";
    expect((await stack.reload()).status).toBe(200);
    const warning = stack.logs.find((l) => l.includes("read at start-up only"));
    expect(warning && JSON.parse(warning)).toMatchObject({ level: "WARN", settings: ["scrape.max_in_flight"] });
    // Still 40 at once: three scrapes together are all served.
    const statuses = await Promise.all([1, 2, 3].map(async () => (await stack!.get("/metrics")).status));
    expect(statuses).toEqual([200, 200, 200]);
  });
});
