// The debug probe's report tells the truth about series dropped over the cap.

import { afterEach, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function report(env: Record<string, string>): Promise<string> {
  stack = await startStack({ env });
  const res = await stack.get("/probe?target=sim&debug=true");
  expect(res.status).toBe(200);
  return res.text();
}

describe("the debug report", () => {
  it("says how many series were dropped over the series cap", async () => {
    const text = await report({ TRADING_MAX_SERIES: "5" });
    expect(text).toMatch(/^ {2}\d+ series dropped over the series cap \(scrape\.max_series\)$/m);
  });

  it("says nothing of dropped series when none were", async () => {
    expect(await report({})).not.toContain("series dropped over");
  });
});
