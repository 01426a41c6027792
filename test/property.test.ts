// Property tests: arbitrary JSON into every parser. Nothing but a VenueError escapes, and whatever
// is read renders to an exposition that promtool accepts.

import { collectFamilies, objectWalk } from "./helpers/fixtures.js";
import { render } from "./helpers/prometheus-client-render.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScrapeResult } from "../src/scrape/result.js";
import { summarizeActive, summarizeHistory } from "../src/scrape/order-summary.js";
import { VenueError } from "../src/venue/errors.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import { readMarkets } from "../src/venue/read-markets.js";
import { readOrders } from "../src/venue/read-orders.js";
import { MARKET_SETTINGS, POSITION_NUMBERS } from "../src/venue/snapshot.js";
import { checkMetrics } from "./helpers/promtool.js";
import { fields } from "./helpers/redactor.js";

/** Values a venue might plausibly (or implausibly) put in a field. */
const fieldValue = fc.oneof(
  fc.jsonValue(),
  fc.double({ noNaN: false }).map(String),
  fc.double(),
  fc.integer({ min: -1e18, max: 1e18 }),
  fc.constantFrom("", " 1.5 ", "1e400", "-0", "NaN", "Infinity", "0x1f", "\u0000", "LONG", "SHORT", "BTC-USD", 'é"\\\n'),
  fc.string({ maxLength: 300 }),
);

function objectWith(keys: readonly string[], extra: fc.Arbitrary<unknown> = fieldValue): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(fc.constantFrom(...keys), extra, { maxKeys: keys.length });
}

const POSITION_KEYS = ["marketId", "direction", ...POSITION_NUMBERS];
const ACCOUNT_KEYS = ["collateralId", "collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"];
const ORDER_KEYS = [
  "id",
  "marketId",
  "type",
  "side",
  "direction",
  "status",
  "isPendingExpiration",
  "isPendingCancellation",
  "isPendingRejection",
  "price",
  "quantity",
  "quantityLocked",
  "quantityFilled",
  "createdAt",
  "rejectionReason",
];

const accountBody = fc.oneof(
  fc.jsonValue(),
  fc
    .tuple(objectWith(ACCOUNT_KEYS), fc.oneof(fieldValue, fc.array(fc.oneof(objectWith(POSITION_KEYS), fieldValue), { maxLength: 6 })))
    .map(([account, positions]) => ({ ...account, positions })),
);
const ordersBody = fc.oneof(
  fc.jsonValue(),
  fc.array(fc.oneof(objectWith(ORDER_KEYS, fc.oneof(fieldValue, objectWith(["code", "message"]))), fieldValue), { maxLength: 12 }),
);
const marketsBody = fc.oneof(
  fc.jsonValue(),
  fc.array(
    fc.oneof(
      fc
        .tuple(objectWith(["id", "name", "assetId", "collateralAssetId", "status"]), fc.oneof(fieldValue, objectWith(MARKET_SETTINGS)))
        .map(([m, settings]) => ({ ...m, settings })),
      fieldValue,
    ),
    { maxLength: 8 },
  ),
);

const bodies = fc.record({ account: accountBody, active: ordersBody, history: ordersBody, markets: marketsBody });

/** Parses like the client does: a VenueError fails the endpoint; any other exception is a bug. */
async function attempt<T>(parse: () => Promise<T>): Promise<T | undefined> {
  try {
    return await parse();
  } catch (error) {
    if (error instanceof VenueError) return undefined;
    throw error;
  }
}

async function scrapeOf(b: { account: unknown; active: unknown; history: unknown; markets: unknown }): Promise<ScrapeResult> {
  const ignore = () => undefined;
  const ok = (endpoint: "account_info" | "orders_active" | "orders_history" | "markets", good: boolean) => ({
    endpoint,
    account: endpoint === "markets" ? undefined : "prop",
    ok: good,
    durationSeconds: 0.1,
    reason: good ? undefined : ("invalid_schema" as const),
    message: undefined,
  });
  const info = await attempt(() => readAccountInfo(objectWalk(b.account), fields, "C", ignore));
  const active = await attempt(() => readOrders(objectWalk(b.active), fields, "orders_active", ignore));
  const history = await attempt(() => readOrders(objectWalk(b.history), fields, "orders_history", ignore));
  const markets = await attempt(() => readMarkets(objectWalk(b.markets), fields, ignore));
  return {
    collectedAt: 0,
    accounts: [
      {
        account: "prop",
        startedAt: 0,
        outcomes: [ok("account_info", !!info), ok("orders_active", !!active), ok("orders_history", !!history)],
        accountInfos: info ? [info] : [],
        activeOrders: active ? summarizeActive({ orders: active, limit: 5 }) : undefined,
        history: history ? summarizeHistory({ orders: history, truncated: false, askNext: 1, anomalies: {} }) : undefined,
      },
    ],
    markets: { outcome: ok("markets", !!markets), markets, readAt: 0, maxAgeSeconds: 60 },
    marketFamilies: true,
  };
}

describe("arbitrary venue bodies", () => {
  it("never throw anything but a VenueError, and always render", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (b) => {
        const text = await render(collectFamilies(await scrapeOf(b)));
        expect(text).toContain("trading_scrape_success");
        expect(text).not.toMatch(/ NaN$/m);
      }),
      { numRuns: 400 },
    );
  });

  it("render expositions that promtool check metrics accepts", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (b) => {
        const text = await render(collectFamilies(await scrapeOf(b)));
        expect(checkMetrics(text)).toBe("");
      }),
      { numRuns: 40 },
    );
  });
});
