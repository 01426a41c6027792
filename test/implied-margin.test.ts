// The venue-implied initial margin and size-limit ratio: the tier formula, exactly, and when the series are absent.

import { describe, expect, it } from "vitest";
import type { ScrapeResult } from "../src/scrape/result.js";
import { impliedInitialMarginFraction, initialMarginRequirement, sizeLimitRatio, unusableSettings } from "../src/collectors/implied-margin.js";
import { positionMargin } from "../src/collectors/position-margin.js";
import { fromNumber, toNumber } from "../src/util/decimal.js";
import { MARKET_SETTINGS, type Market, type MarketSetting, type Position } from "../src/venue/snapshot.js";

/** BTC-USD of test/fixtures/markets.json: IMF 5%, +1% per 10 above 50, at most 500. */
function market(overrides: Partial<Record<MarketSetting, number | undefined>> = {}, id = "BTC-USD"): Market {
  const settings = Object.fromEntries(MARKET_SETTINGS.map((k) => [k, undefined])) as Record<MarketSetting, number | undefined>;
  Object.assign(settings, {
    initialMarginFraction: 0.05,
    incrementalInitialMarginFraction: 0.01,
    incrementalPositionSize: 10,
    baselinePositionSize: 50,
    maxPositionSize: 500,
    ...overrides,
  });
  return { id, name: undefined, assetId: undefined, collateralAssetId: undefined, status: "TRADABLE", settings };
}

function position(size: number, avgExecutionPrice: number, direction = size < 0 ? "SHORT" : "LONG", marketId = "BTC-USD"): Position {
  return {
    marketId,
    direction,
    avgExecutionPrice,
    size,
    marginAmount: undefined,
    borrowedAmount: undefined,
    leverage: undefined,
    realizedPnl: undefined,
    liquidationPrice: undefined,
    maintenanceMargin: undefined,
    exact: undefined,
  };
}

const imf = (size: number, m = market()) => {
  const d = impliedInitialMarginFraction(fromNumber(size), m);
  return d === undefined ? undefined : toNumber(d);
};

describe("implied initial margin fraction", () => {
  it("is the base fraction at and below the baseline, long and short", () => {
    for (const size of [0, 0.3, 49.999, 50, -50, -0.3]) expect(imf(size), String(size)).toBe(0.05);
  });

  it("adds one increment per started step above the baseline, long and short", () => {
    expect(imf(50.001)).toBe(0.06); // a part step counts as a whole one
    expect(imf(60)).toBe(0.06); // exactly one step: not two
    expect(imf(60.001)).toBe(0.07);
    expect(imf(100.5)).toBe(0.11); // ⌈50.5 / 10⌉ = 6
    expect(imf(-100.5)).toBe(0.11);
  });
});

describe("trading_position_initial_margin_requirement", () => {
  it("is |size| × average execution price × IMF(size) above, at and below the baseline, long and short", () => {
    expect(initialMarginRequirement(position(100.5, 60000.5), market())).toBe(663305.5275); // 100.5 × 60000.5 × 0.11
    expect(initialMarginRequirement(position(-100.5, 60000.5), market())).toBe(663305.5275);
    expect(initialMarginRequirement(position(50, 60000), market())).toBe(150000); // 50 × 60000 × 0.05
    expect(initialMarginRequirement(position(-50, 60000), market())).toBe(150000);
    expect(initialMarginRequirement(position(0.3, 3000.1), market())).toBe(45.0015); // 0.3 × 3000.1 × 0.05
    expect(initialMarginRequirement(position(-0.3, 3000.1), market())).toBe(45.0015);
  });

  it("is computed in exact decimals, rounded once", () => {
    expect(0.7 * 3000.3 * 0.05).not.toBe(105.0105);
    expect(initialMarginRequirement(position(0.7, 3000.3), market())).toBe(105.0105);
  });

  it("is absent when a tier setting is missing, zero or negative, or the market is unknown", () => {
    for (const key of ["initialMarginFraction", "incrementalInitialMarginFraction", "baselinePositionSize", "incrementalPositionSize"] as const) {
      for (const value of [undefined, 0, -1]) expect(initialMarginRequirement(position(100, 1), market({ [key]: value })), `${key}=${value}`).toBeUndefined();
    }
    expect(initialMarginRequirement(position(100, 1), undefined)).toBeUndefined();
  });
});

describe("trading_position_size_limit_ratio", () => {
  it("is |size| ÷ maxPositionSize, long and short", () => {
    expect(sizeLimitRatio(position(100.5, 1), market())).toBe(0.201);
    expect(sizeLimitRatio(position(-450, 1), market())).toBe(0.9);
    expect(sizeLimitRatio(position(0.3, 1), market())).toBe(0.0006);
  });

  it("is absent when maxPositionSize is missing or zero", () => {
    expect(sizeLimitRatio(position(1, 1), market({ maxPositionSize: undefined }))).toBeUndefined();
    expect(sizeLimitRatio(position(1, 1), market({ maxPositionSize: 0 }))).toBeUndefined();
    expect(unusableSettings(market({ maxPositionSize: 0, baselinePositionSize: undefined }), ["baselinePositionSize", "maxPositionSize"])).toEqual([
      "baselinePositionSize",
      "maxPositionSize",
    ]);
  });
});

describe("the position margin collector", () => {
  function scrape(markets: Market[] | undefined, positions: Position[]): ScrapeResult {
    const outcome = { endpoint: "markets", account: undefined, ok: true, durationSeconds: 0 } as never;
    return {
      collectedAt: 0,
      accounts: [
        {
          account: "main",
          startedAt: 0,
          outcomes: [],
          accountInfos: [{ collateralId: "USDC", shape: "detailed", positions, positionsComplete: true, exact: undefined } as never],
          activeOrders: undefined,
          history: undefined,
        },
      ],
      markets: markets === undefined ? undefined : { outcome, markets, readAt: 0, maxAgeSeconds: 60 },
      // As an account's /probe answer: the list is read for the positions, its own families are the venue target's.
      marketFamilies: false,
    };
  }
  const samples = (s: ScrapeResult) =>
    Object.fromEntries(positionMargin.collect(s).map((f) => [f.name, f.samples.map((x) => [x.labels.join(","), x.value].join("="))]));

  it("joins each position to its market and counts each input it lacks", () => {
    const s = scrape(
      [market(), market({ incrementalPositionSize: 0, maxPositionSize: undefined }, "ETH-USD")],
      [position(-100.5, 60000.5), position(1, 3000, "LONG", "ETH-USD"), position(1, 1, "LONG", "SOL-USD")],
    );
    expect(samples(s)).toEqual({
      trading_position_initial_margin_requirement: ["main,USDC,BTC-USD,SHORT=663305.5275"],
      trading_position_size_limit_ratio: ["main,USDC,BTC-USD,SHORT=0.201"],
      trading_position_margin_input_missing: [
        "main,USDC,ETH-USD,LONG,incrementalPositionSize=1",
        "main,USDC,ETH-USD,LONG,maxPositionSize=1",
        "main,USDC,SOL-USD,LONG,market=1",
      ],
    });
  });

  it("counts nothing when no market list was read (the markets endpoint's success says why)", () => {
    expect(samples(scrape(undefined, [position(1, 1)]))).toEqual({
      trading_position_initial_margin_requirement: [],
      trading_position_size_limit_ratio: [],
      trading_position_margin_input_missing: [],
    });
  });
});
