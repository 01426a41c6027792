// Reads the public market list into Markets.

import { VenueError } from "./errors.js";
import { isRecord, readLabel, readNumber } from "./fields.js";
import type { FieldReporter } from "./parse-account.js";
import { MARKET_SETTINGS, type Market, type MarketSetting } from "./snapshot.js";

function readMarket(raw: Record<string, unknown>, invalid: FieldReporter): Market | undefined {
  const id = readLabel(raw.id);
  if (id === undefined) {
    invalid("id");
    return undefined;
  }
  const label = (field: string): string | undefined => {
    const value = readLabel(raw[field]);
    if (value === undefined) invalid(field);
    return value;
  };
  const settingsRaw = isRecord(raw.settings) ? raw.settings : undefined;
  if (settingsRaw === undefined) invalid("settings");
  const settings = {} as Record<MarketSetting, number | undefined>;
  for (const key of MARKET_SETTINGS) {
    const value = settingsRaw === undefined ? undefined : readNumber(settingsRaw[key]);
    if (value === undefined && settingsRaw !== undefined) invalid(`settings.${key}`);
    settings[key] = value;
  }
  return {
    id,
    name: label("name"),
    assetId: label("assetId"),
    collateralAssetId: label("collateralAssetId"),
    status: label("status"),
    settings,
  };
}

/** The market list: a JSON array of Market objects; a repeated id keeps its first entry. */
export function parseMarkets(body: unknown, invalid: FieldReporter): Market[] {
  if (!Array.isArray(body)) {
    throw new VenueError("invalid_schema", "markets: expected a JSON array of markets");
  }
  const markets: Market[] = [];
  const seen = new Set<string>();
  for (const raw of body) {
    if (!isRecord(raw)) {
      invalid("[]");
      continue;
    }
    const market = readMarket(raw, invalid);
    if (market === undefined) continue;
    if (seen.has(market.id)) {
      invalid("id");
      continue;
    }
    seen.add(market.id);
    markets.push(market);
  }
  return markets;
}
