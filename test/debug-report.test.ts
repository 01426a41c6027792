// The debug probe's report tells the truth about series dropped over the cap, and puts each line under its row.

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

  it("prints the history line right under the orders_history row, not under the market list's", async () => {
    const lines = (await report({})).split("\n");
    const endpoints = lines.slice(lines.indexOf("Endpoints:") + 1, lines.indexOf("", lines.indexOf("Endpoints:")));
    const history = endpoints.findIndex((l) => /^ {2} {15} history: \d+ orders/.test(l));
    expect(history).toBeGreaterThan(0);
    expect(endpoints[history - 1]).toMatch(/^ {2}orders_history +ok in /);
    expect(endpoints.at(-1)).toMatch(/^ {2}markets +ok in /);
  });

  it("says nothing of dropped series when none were", async () => {
    expect(await report({})).not.toContain("series dropped over");
  });
});
