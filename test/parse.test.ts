// The venue parsers: shapes told apart by content, bad fields counted, wrong containers refused.

import { describe, expect, it } from "vitest";
import { VenueError } from "../src/venue/errors.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import { readMarkets } from "../src/venue/read-markets.js";
import { readOrders } from "../src/venue/read-orders.js";
import { MARKET_SETTINGS } from "../src/venue/snapshot.js";
import { fixture, objectWalk, scrapeFromFixtures } from "./helpers/fixtures.js";
import { fields, redactor } from "./helpers/redactor.js";

const ignore = () => undefined;
const readInfo = (body: unknown, collateralId: string, invalid: (field: string) => void) => readAccountInfo(objectWalk(body), fields, collateralId, invalid);

describe("readAccountInfo", () => {
  it("tells the detailed shape by its list of positions", async () => {
    const info = await readInfo(fixture("account-detailed.json"), "USDC", ignore);
    expect(info.shape).toBe("detailed");
    expect(info.positionCount).toBe(2);
    expect(info.positions[0]?.avgExecutionPrice).toBe(60000.5);
    expect(info.collateralBalance).toBe(10000.123456);
  });

  it("tells the summary shape by its count of positions", async () => {
    const info = await readInfo(fixture("account-summary.json"), "USDT", ignore);
    expect(info).toMatchObject({ shape: "summary", positionCount: 3, positions: [], totalMargin: 4990.75 });
  });

  it("reads a summary-shape body whose numbers are decimal strings", async () => {
    const info = await readInfo({ collateralBalance: "5.5", positions: "2" }, "X", ignore);
    expect(info).toMatchObject({ shape: "summary", collateralBalance: 5.5, positionCount: 2 });
  });

  it("flags an answer for another collateral", async () => {
    const seen: string[] = [];
    await readInfo({ ...(fixture("account-summary.json") as object), collateralId: "OTHER" }, "USDT", (f) => seen.push(f));
    expect(seen).toEqual(["collateralId"]);
  });

  it.each([[[]], ["text"], [null], [42]])("refuses %j as the body", async (body) => {
    await expect(readInfo(body, "USDC", ignore)).rejects.toThrow(VenueError);
  });
});

describe("readOrders and readMarkets", () => {
  it("refuse a body that is not an array", async () => {
    await expect(readOrders(objectWalk({ orders: [] }), fields, "orders_active", ignore)).rejects.toThrowError(/expected a JSON array/);
    await expect(readMarkets(objectWalk({}), fields, ignore)).rejects.toThrowError(expect.objectContaining({ reason: "invalid_schema" }));
  });

  it("keep an order id of up to 128 characters as it is, a longer one as its SHA-256 of fixed size", async () => {
    const long = (c: string) => c.repeat(90 * 1024);
    const body = [{ id: "a".repeat(128) }, { id: long("x") }, { id: long("y") }, { id: long("x") }, { id: 42 }];
    const ids = (await readOrders(objectWalk(body), fields, "orders_history", ignore)).map((o) => o.id);
    expect(ids[0]).toBe("a".repeat(128));
    for (const id of ids.slice(1, 4)) expect(id).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(ids[1]).not.toBe(ids[2]);
    expect(ids[3]).toBe(ids[1]);
    expect(ids[4]).toBe("42");
  });

  it("read each label as it is in every order: a repeated bad value reported each time, a repeated secret redacted each time", async () => {
    redactor.hold(["parse-orders-secret-4417"]);
    const bidi = "BTC\u202E-USD";
    const body = [1, 2, 3].map((i) => ({ id: String(i), marketId: bidi, side: "key parse-orders-secret-4417", status: "FILLED" }));
    const reported: string[] = [];
    const orders = await readOrders(objectWalk(body), fields, "orders_history", (field) => reported.push(field));
    expect(reported.filter((f) => f === "marketId")).toHaveLength(3);
    expect(orders.map((o) => [o.marketId, o.side, o.status])).toEqual(Array(3).fill(["BTC\uFFFD-USD", "key <secret>", "FILLED"]));
  });

  it("keep the first of two markets with one id", async () => {
    const markets = await readMarkets(objectWalk(fixture("markets-odd.json")), fields, ignore);
    expect(markets.map((m) => [m.id, m.name])).toEqual([
      ["BTC-USD", "Bitcoin"],
      ["SOL-USD", undefined],
    ]);
  });
});

describe("invalid fields of the odd fixtures", () => {
  it("are each counted under their endpoint and field", async () => {
    const { invalid } = await scrapeFromFixtures({
      account: "odd",
      accountInfos: [["USDC", "account-odd.json"]],
      active: "orders-odd.json",
      history: { fail: "timeout" },
      markets: "markets-odd.json",
    });
    expect(invalid).toEqual({
      "account_info positions[].avgExecutionPrice": 1,
      "account_info positions[].marginAmount": 1,
      "account_info positions[].borrowedAmount": 1,
      "account_info positions[].leverage": 1,
      "account_info positions[].marketId": 1,
      // SIDEWAYS: neither LONG nor SHORT.
      "account_info positions[].direction": 1,
      "account_info positions[]": 1,
      "account_info availableMargin": 1,
      "account_info totalUnrealizedPnl": 1,
      "account_info unset:positions[].liquidationPrice": 1,
      "orders_active quantity": 1,
      "orders_active isPendingCancellation": 1,
      "orders_active marketId": 1,
      "orders_active unset:createdAt": 1,
      "orders_active rejectionReason.code": 1,
      "orders_active []": 2,
      "markets settings.stepSize": 1,
      "markets settings.stepPrecision": 1,
      "markets settings.minOrderSize": 1,
      "markets id": 2,
      "markets name": 1,
      "markets settings": 1,
      ...Object.fromEntries(MARKET_SETTINGS.map((k) => [`markets settings.${k}`, k === "stepSize" || k === "stepPrecision" || k === "minOrderSize" ? 2 : 1])),
    });
  });
});
