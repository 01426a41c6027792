// A position the venue lists twice (same market and direction) is read one way: merged into one series whose sums
// are the account's, so a desk adding the position series up in PromQL gets the exporter's maintenance margin.

import { describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS } from "../src/config/threshold-table.js";
import { statusData } from "../src/http/pages/status-data.js";
import { collectFamilies, scrapeFromFixtures } from "./helpers/fixtures.js";

/** The scrape of one account of `file`'s positions, the other endpoints failed. */
function scrapeOf(file: string) {
  return scrapeFromFixtures({
    account: "desk",
    accountInfos: [["USDC", file]],
    active: { fail: "timeout" },
    history: { fail: "timeout" },
    markets: { fail: "timeout" },
  });
}

/** A family's values keyed by `keyOf` its labels: by market, or the account's one value. */
async function families(file = "account-repeated-position.json", keyOf = (labels: ReadonlyArray<string | null>) => labels[2] ?? "account") {
  const { scrape, invalid } = await scrapeOf(file);
  const all = collectFamilies(scrape);
  const values = (name: string): Record<string, number> =>
    Object.fromEntries((all.find((f) => f.name === name)?.samples ?? []).map((s) => [keyOf(s.labels), s.value]));
  return { values, invalid };
}

describe("a position listed twice", () => {
  it("gives an account maintenance margin equal to the sum of its position series", async () => {
    const { values } = await families();
    const positions = Object.values(values("trading_position_maintenance_margin"));
    expect(positions).toHaveLength(2);
    expect(values("trading_account_maintenance_margin").account).toBe(positions.reduce((a, b) => a + b, 0));
    expect(values("trading_account_maintenance_margin").account).toBe(17.5);
  });

  it("adds size, margin, borrowed amount, maintenance margin, realized PnL and notional; weights the price by size", async () => {
    const { values } = await families();
    expect(values("trading_position_size")["BTC-USD"]).toBe(0.4);
    expect(values("trading_position_margin")["BTC-USD"]).toBe(4920);
    expect(values("trading_position_borrowed")["BTC-USD"]).toBe(19680);
    expect(values("trading_position_maintenance_margin")["BTC-USD"]).toBe(15);
    expect(values("trading_position_realized_pnl")["BTC-USD"]).toBe(-11);
    expect(values("trading_position_notional")["BTC-USD"]).toBe(6000 + 18600);
    expect(values("trading_position_avg_execution_price")["BTC-USD"]).toBe(61500);
    expect(values("trading_position_leverage")["BTC-USD"]).toBe(5);
    // The other position is untouched.
    expect(values("trading_position_size")["ETH-USD"]).toBe(0.3);
  });

  it("takes the liquidation price and distance of the nearer of the two, and counts the repeat", async () => {
    const { values, invalid } = await families();
    // 62,000 → 55,800 is 10 % away; 60,000 → 48,000 is 20 %: the second is nearer.
    expect(values("trading_position_liquidation_price")["BTC-USD"]).toBe(55800);
    expect(values("trading_position_liquidation_distance_ratio")["BTC-USD"]).toBe(0.1);
    expect(invalid["account_info positions[].marketId"]).toBe(1);
    expect(values("trading_account_positions").account).toBe(3);
  });
});

describe("a position listed twice, at its edges", () => {
  /** Keyed market_id/direction. */
  const edges = () => families("account-repeated-edges.json", (labels) => `${labels[2]}/${labels[3]}`);

  it("merged to size 0 is no open position: no liquidation price, no distance", async () => {
    const { values } = await edges();
    expect(values("trading_position_size")["BTC-USD/LONG"]).toBe(0);
    expect(values("trading_position_liquidation_price")["BTC-USD/LONG"]).toBeUndefined();
    expect(values("trading_position_liquidation_distance_ratio")["BTC-USD/LONG"]).toBeUndefined();
    expect(values("trading_position_avg_execution_price")["BTC-USD/LONG"]).toBeUndefined();
  });

  it("reads a direction in any case as one position, written upper case, and leaves a price of 0 out of the average", async () => {
    const { values } = await edges();
    expect(Object.keys(values("trading_position_size")).filter((k) => k.startsWith("ETH-USD"))).toEqual(["ETH-USD/LONG"]);
    expect(values("trading_position_size")["ETH-USD/LONG"]).toBe(5);
    // 3 @ 3175.5 and 2 @ 0 (no price given): the entry is 3175.5, not 1905.3.
    expect(values("trading_position_avg_execution_price")["ETH-USD/LONG"]).toBe(3175.5);
    // The unpriced leg's notional is unknown, so the merged one is too: 5 × 3175.5 would invent it.
    expect(values("trading_position_notional")["ETH-USD/LONG"]).toBeUndefined();
  });

  it("counts a direction that is neither LONG nor SHORT, and keeps its series without a distance", async () => {
    const { values, invalid } = await edges();
    expect(invalid["account_info positions[].direction"]).toBe(1);
    expect(values("trading_position_size")["SOL-USD/SIDEWAYS"]).toBe(1);
    expect(values("trading_position_liquidation_distance_ratio")["SOL-USD/SIDEWAYS"]).toBeUndefined();
  });
});

describe("the status page of a position listed twice", () => {
  it("shows beside the nearest distance the entry it is measured from, not the merged average", async () => {
    const { scrape } = await scrapeOf("account-repeated-position.json");
    const page = statusData(scrape, [{ name: "desk", collateralIds: ["USDC"], thresholds: DEFAULT_THRESHOLDS }], () => undefined);
    const nearest = page.accounts[0]?.collaterals[0]?.nearest;
    // 62,000 → 55,800 is the nearer leg's 10 %: its own entry, not the merged 61,500.
    expect(nearest).toMatchObject({ marketId: "BTC-USD", direction: "LONG", distance: 0.1, entry: 62000, liquidation: 55800 });
  });
});
