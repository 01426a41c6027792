// Reads the public market list into Markets.

import { VenueError } from "./errors.js";
import { type FieldReporter, type VenueFields, isRecord, readFields } from "./fields.js";
import { OVER_CAP_FIELD, type ListWalk } from "./walk.js";
import { MARKET_SETTINGS, type Market } from "./snapshot.js";

/** Every field the market reader may report, which SelfMetrics starts at 0 (test/known-fields.test.ts holds them equal). */
export const MARKET_FIELDS = [
  "[]",
  "id",
  "name",
  "assetId",
  "collateralAssetId",
  "status",
  "settings",
  ...MARKET_SETTINGS.map((key) => `settings.${key}`),
  OVER_CAP_FIELD,
] as const;

function readMarket(raw: Record<string, unknown>, f: VenueFields, invalid: FieldReporter): Market | undefined {
  const id = f.label(raw.id, "id", invalid);
  if (id === undefined) return undefined;
  const label = (field: string): string | undefined => f.label(raw[field], field, invalid);
  const given = isRecord(raw.settings) ? raw.settings : undefined;
  if (given === undefined) invalid("settings");
  const settings = readFields(given ?? {}, MARKET_SETTINGS, f.number, given === undefined ? () => undefined : invalid, "settings.");
  return { id, name: label("name"), assetId: label("assetId"), collateralAssetId: label("collateralAssetId"), status: label("status"), settings };
}

/** A repeated id keeps its first entry. */
export async function readMarkets(walk: ListWalk, f: VenueFields, invalid: FieldReporter): Promise<Market[]> {
  const markets: Market[] = [];
  const seen = new Set<string>();
  const walked = await walk(undefined, invalid, (raw) => {
    if (!isRecord(raw)) return invalid("[]");
    const market = readMarket(raw, f, invalid);
    if (market === undefined) return;
    if (seen.has(market.id)) return invalid("id");
    seen.add(market.id);
    markets.push(market);
  });
  if (!Array.isArray(walked.root)) throw new VenueError("invalid_schema", "markets: expected a JSON array of markets");
  return markets;
}
