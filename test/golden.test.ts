// Fixture payloads in, the full exposition out, compared with the golden files in test/golden/.
// Regenerate after a deliberate change with `npm run golden:update` and review the diff.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { collectFamilies } from "../src/collectors/index.js";
import { renderText } from "../src/metrics/text-render.js";
import { scrapeFromFixtures, type FixtureCase } from "./helpers/fixtures.js";

const CASES: Record<string, FixtureCase> = {
  detailed: {
    account: "main",
    accountInfos: [["USDC", "account-detailed.json"]],
    active: "orders-active.json",
    history: "orders-history.json",
    markets: "markets.json",
  },
  summary: {
    account: "desk-2",
    accountInfos: [
      ["USDT", "account-summary.json"],
      ["BTC", { fail: "http_5xx" }],
    ],
    active: "orders-active.json",
    activeLimit: 3,
    history: { fail: "invalid_json" },
    markets: { fail: "timeout" },
  },
  odd: {
    account: "odd",
    accountInfos: [["USDC", "account-odd.json"]],
    active: "orders-odd.json",
    history: "orders-odd.json",
    markets: "markets-odd.json",
  },
};

describe("golden exposition", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name} matches test/golden/${name}.prom`, async () => {
      const text = renderText(collectFamilies(scrapeFromFixtures(c).scrape));
      const file = new URL(`./golden/${name}.prom`, import.meta.url);
      if (process.env.UPDATE_GOLDEN === "1" || !existsSync(file)) writeFileSync(file, text);
      expect(text).toBe(readFileSync(file, "utf8"));
    });
  }
});
