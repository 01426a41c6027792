// Market generation (ids, settings, metadata) and the mean-reverting random walk of mark prices.
import { powerOfTen, roundTo, roundToIncrement } from "./numbers.js";
import type { Rng } from "./prng.js";
import type { CollateralSpec, Market } from "./types.js";

/** A collateral with the scale its amounts are expressed in. */
export interface CollateralInfo extends CollateralSpec {
  /** USD value of one unit, so that BTC balances and prices look like BTC amounts. */
  usdValue: number;
  /** Decimals of the collateral's amount strings. */
  decimals: number;
}

export interface MarketState {
  index: number;
  /** The wire object; `status` changes under the halt scenario. */
  market: Market;
  collateral: CollateralInfo;
  /** USD price of one unit of the asset at generation; order sizes are drawn in USD. */
  usdPrice: number;
  /** The price the walk reverts to, in collateral units. */
  basePrice: number;
  /** Current mark price, in collateral units (internal: the reference has no mark price field). */
  mark: number;
}

const USD_VALUE: Readonly<Record<string, number>> = { BTC: 64_000, ETH: 3_200, SOL: 145 };

export function collateralInfo(spec: CollateralSpec): CollateralInfo {
  const usdValue = USD_VALUE[spec.id] ?? 1;
  return { ...spec, usdValue, decimals: usdValue > 1 ? 8 : 6 };
}

/** Well-known assets with rough USD prices; beyond these, synthetic assets are generated. */
const KNOWN_ASSETS: ReadonlyArray<readonly [string, number, string]> = [
  ["BTC", 64_000, "L1"],
  ["ETH", 3_200, "L1"],
  ["SOL", 145, "L1"],
  ["BNB", 560, "L1"],
  ["XRP", 0.52, "Payments"],
  ["DOGE", 0.12, "Meme"],
  ["ADA", 0.45, "L1"],
  ["AVAX", 28, "L1"],
  ["LINK", 14, "Oracle"],
  ["DOT", 6.5, "L0"],
  ["TRX", 0.12, "L1"],
  ["TON", 5.6, "L1"],
  ["POL", 0.55, "L2"],
  ["LTC", 72, "Payments"],
  ["BCH", 380, "Payments"],
  ["NEAR", 5.2, "L1"],
  ["UNI", 8.1, "DeFi"],
  ["ATOM", 7.4, "L0"],
  ["APT", 7.9, "L1"],
  ["ARB", 0.85, "L2"],
  ["OP", 1.7, "L2"],
  ["SUI", 1.1, "L1"],
  ["INJ", 22, "DeFi"],
  ["TIA", 6.3, "Infra"],
  ["SEI", 0.42, "L1"],
  ["PEPE", 0.0000085, "Meme"],
  ["WIF", 2.1, "Meme"],
  ["JUP", 0.9, "DeFi"],
  ["FIL", 4.6, "Infra"],
  ["ETC", 24, "L1"],
  ["AAVE", 95, "DeFi"],
  ["MKR", 2_300, "DeFi"],
  ["LDO", 1.6, "DeFi"],
  ["RNDR", 7.2, "AI"],
  ["IMX", 1.5, "Gaming"],
  ["STX", 1.8, "L2"],
  ["HBAR", 0.07, "L1"],
  ["ICP", 9.5, "L1"],
  ["FET", 1.3, "AI"],
  ["ENA", 0.6, "DeFi"],
];
const CATEGORIES = ["L1", "L2", "DeFi", "Meme", "Infra", "AI", "Gaming"];
const MAX_LEVERAGES = [5, 10, 20, 25, 50, 100];

interface Asset {
  id: string;
  usdPrice: number;
  category: string;
}

function assetAt(index: number, rng: Rng): Asset {
  const known = KNOWN_ASSETS[index];
  if (known !== undefined) return { id: known[0], usdPrice: known[1], category: known[2] };
  return { id: `X${index.toString(36).toUpperCase().padStart(4, "0")}`, usdPrice: rng.logRange(0.01, 500), category: rng.pick(CATEGORIES) };
}

function buildMarket(index: number, asset: Asset, collateral: CollateralInfo, rng: Rng): MarketState {
  const id = `${asset.id}-${collateral.id}`;
  const price = (asset.usdPrice * rng.range(0.97, 1.03)) / collateral.usdValue;
  const tickExp = Math.floor(Math.log10(price)) - 4;
  const tickPrecision = Math.max(0, -tickExp);
  const tickSize = powerOfTen(tickExp);
  const stepExp = Math.min(6, Math.max(-6, Math.ceil(Math.log10(10 / asset.usdPrice))));
  const stepPrecision = Math.max(0, -stepExp);
  const stepSize = powerOfTen(stepExp);
  const inSteps = (units: number): number => Math.max(stepSize, roundToIncrement(units, stepSize, stepPrecision));
  const maxLeverage = rng.pick(MAX_LEVERAGES);
  const initialMarginFraction = roundTo(1 / maxLeverage, 6);
  const baselinePositionSize = inSteps(rng.pick([500_000, 1_000_000, 2_000_000, 5_000_000]) / asset.usdPrice);
  const market: Market = {
    id,
    name: `${asset.id}/${collateral.id} Perpetual`,
    assetId: asset.id,
    collateralAssetId: collateral.id,
    status: "TRADABLE",
    metadataUrl: `https://sim.invalid/markets/${id}/metadata.json`,
    metadata: {
      category: asset.category,
      displayDecimals: Math.min(tickPrecision, 8),
      listedAt: new Date(Date.UTC(2023, 0, 1) + index * 86_400_000).toISOString(),
      tags: ["perpetual", asset.category.toLowerCase()],
    },
    settings: {
      tickSize,
      tickPrecision,
      stepSize,
      stepPrecision,
      minOrderSize: inSteps(stepSize * rng.pick([1, 2, 5, 10])),
      minLeverage: 1,
      maxLeverage,
      maintenanceMarginFraction: roundTo(initialMarginFraction / 2, 6),
      initialMarginFraction,
      incrementalInitialMarginFraction: rng.pick([0.005, 0.01, 0.02]),
      incrementalPositionSize: inSteps(baselinePositionSize / 5),
      baselinePositionSize,
      maxPositionSize: inSteps(baselinePositionSize * 20),
      currentlyAllowedLeverage: maxLeverage,
    },
  };
  return { index, market, collateral, usdPrice: asset.usdPrice, basePrice: price, mark: price };
}

/** `count` markets, assets crossed with collaterals in turn (BTC-USDC, BTC-USDT, ETH-USDC, ...). */
export function generateMarkets(count: number, collaterals: readonly CollateralInfo[], rng: Rng): MarketState[] {
  const markets: MarketState[] = [];
  for (let a = 0; markets.length < count; a++) {
    const asset = assetAt(a, rng);
    for (const collateral of collaterals) {
      if (markets.length >= count) break;
      if (asset.id === collateral.id) continue;
      markets.push(buildMarket(markets.length, asset, collateral, rng));
    }
  }
  return markets;
}

const VOLATILITY = 0.001;
const REVERSION = 0.05;

/** One step of a mean-reverting (Ornstein-Uhlenbeck in log price) walk, so prices move but stay bounded. */
export function stepMarks(markets: readonly MarketState[], rng: Rng): void {
  for (const m of markets) {
    m.mark *= Math.exp(VOLATILITY * rng.normal() - REVERSION * Math.log(m.mark / m.basePrice));
  }
}
