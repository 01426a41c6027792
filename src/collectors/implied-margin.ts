// The initial margin and size-limit ratio a position implies under its market's tiered settings, in exact decimals.

import { abs, add, ceilQuotient, decimalOf, fromNumber, multiply, quotient, subtract, toNumber, type Decimal } from "../util/decimal.js";
import type { Market, MarketSetting, Position } from "../venue/snapshot.js";

/** The settings each series reads; missing, zero or negative makes that series absent (dYdX v3 tiers never hold 0). */
export const MARGIN_SETTINGS = ["initialMarginFraction", "incrementalInitialMarginFraction", "baselinePositionSize", "incrementalPositionSize"] as const;
export const LIMIT_SETTINGS = ["maxPositionSize"] as const;

/** A setting the venue sent as a usable (positive) number, as the decimal it was written as; else undefined. */
function setting(market: Market, key: MarketSetting): Decimal | undefined {
  const value = market.settings[key];
  return value !== undefined && Number.isFinite(value) && value > 0 ? fromNumber(value) : undefined;
}

/** The settings of `keys` the market lacks (missing, zero or negative), in the order given. */
export function unusableSettings(market: Market, keys: readonly MarketSetting[]): MarketSetting[] {
  return keys.filter((k) => setting(market, k) === undefined);
}

function absSize(p: Position): Decimal | undefined {
  return p.size === undefined ? undefined : abs(decimalOf(p.size, p.exact?.size));
}

/** IMF(size) = IMF + incremental IMF × ⌈max(0, |size| − baseline size) ÷ incremental size⌉, exactly; undefined if a setting is unusable. */
export function impliedInitialMarginFraction(size: Decimal, market: Market): Decimal | undefined {
  const [imf, step, baseline, increment] = MARGIN_SETTINGS.map((k) => setting(market, k));
  if (imf === undefined || step === undefined || baseline === undefined || increment === undefined) return undefined;
  const above = subtract(abs(size), baseline);
  const steps = above.mantissa > 0n ? ceilQuotient(above, increment) : 0n;
  return add(imf, multiply(step, { mantissa: steps, scale: 0 }));
}

/** |size| × average execution price × IMF(size), rounded once to a double. */
export function initialMarginRequirement(p: Position, market: Market | undefined): number | undefined {
  const size = absSize(p);
  if (market === undefined || size === undefined || p.avgExecutionPrice === undefined) return undefined;
  const fraction = impliedInitialMarginFraction(size, market);
  if (fraction === undefined) return undefined;
  return toNumber(multiply(multiply(size, decimalOf(p.avgExecutionPrice, p.exact?.avgExecutionPrice)), fraction));
}

/** |size| ÷ maxPositionSize, rounded once; 1 is at the venue's limit. */
export function sizeLimitRatio(p: Position, market: Market | undefined): number | undefined {
  const size = absSize(p);
  const max = market === undefined ? undefined : setting(market, "maxPositionSize");
  return size === undefined || max === undefined ? undefined : quotient(size, max);
}
