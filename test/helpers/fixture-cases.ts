// The fixture cases of the golden files: each a scrape built from test/fixtures/ through the real parsers.

import type { FixtureCase } from "./fixtures.js";

export const CASES: Record<string, FixtureCase> = {
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
  // The venue-implied margin above, at and below the baseline, long and short, near the size limit, and a market not listed.
  margin: {
    account: "margin",
    accountInfos: [["USDC", "account-margin.json"]],
    active: { fail: "http_5xx" },
    history: { fail: "http_5xx" },
    markets: "markets.json",
  },
};
