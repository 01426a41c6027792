// 9.9 MB bodies of empty objects (valid JSON, under the 10 MiB cap) on every endpoint at once, and on
// three collaterals in a row: every body is read, /-/healthy keeps answering all along, the items past venue.max_items are counted, and a healthy scrape follows. Time and memory
// figures come from `npm run bench:hostile`.

import { afterEach, describe, expect, it } from "vitest";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startStack, type Stack } from "./helpers/stack.js";

const COLLATERALS = [
  { id: "USDC", shape: "detailed" as const },
  { id: "USDT", shape: "detailed" as const },
  { id: "BTC", shape: "detailed" as const },
];
/** Generous, so the test holds on a loaded machine: the time goal (9.5 s) is read from `npm run bench:hostile`. */
const SCRAPE_TIMEOUT_S = 60;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** GET /-/healthy over and over until `until` settles: every answer's status. */
async function pollHealthy(s: Stack, until: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let done = false;
  void until.finally(() => {
    done = true;
  });
  while (!done) {
    const res = await s.get("/-/healthy");
    await res.text();
    statuses.push(res.status);
  }
  return statuses;
}

describe("9.9 MB bodies of empty objects", () => {
  it("on every endpoint and three collaterals: every body is read, health answers all along, the cap is counted", async () => {
    stack = await startStack({
      venue: { collaterals: COLLATERALS },
      env: { TRADING_COLLATERAL_IDS: "USDC,USDT,BTC", TRADING_MARKETS_CACHE_SECONDS: "0", TRADING_SCRAPE_TIMEOUT_MAX_SECONDS: String(SCRAPE_TIMEOUT_S) },
      logLevel: "warn",
    });
    stack.venue.setFaults([{ endpoint: "*", kind: "empty_objects" }]);
    const scrape = stack
      .get("/metrics", { "x-prometheus-scrape-timeout-seconds": String(SCRAPE_TIMEOUT_S) })
      .then(async (res) => ({ status: res.status, text: await res.text() }));
    const [health, answer] = await Promise.all([pollHealthy(stack, scrape), scrape]);

    expect(answer.status).toBe(200);
    expect(health.length).toBeGreaterThan(1);
    expect(health.every((status) => status === 200)).toBe(true);
    const samples = parseExposition(answer.text);
    // Bodies that are JSON of the right container keep their endpoint up, with the cap counted.
    for (const endpoint of ["account_info", "orders_active", "orders_history", "markets"]) {
      expect(samples.filter((s) => s.name === "trading_scrape_success" && s.labels.endpoint === endpoint).map((s) => s.value)).toEqual([1]);
      expect(valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint, field: "over_cap" })).toBeGreaterThan(0);
    }
    // Positions past the cap were not read: the margin ratio is withheld rather than wrong.
    expect(samples.some((s) => s.name === "trading_account_margin_ratio")).toBe(false);

    stack.venue.clearFaults();
    const after = parseExposition(await stack.scrape());
    expect(valueOf(after, "trading_scrape_success", { endpoint: "account_info", account: "sim" })).toBe(1);
    expect(after.some((s) => s.name === "trading_account_margin_ratio")).toBe(true);
  });
});
