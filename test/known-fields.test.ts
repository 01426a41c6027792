// The readers' lists of field names are what they report, and the exporter starts each at 0; an empty rejection code is no rejection.

import { describe, expect, it } from "vitest";
import { SelfMetrics } from "../src/metrics/self.js";
import { ENDPOINTS } from "../src/venue/endpoints.js";
import { KNOWN_INVALID_FIELDS } from "../src/metrics/self.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import { readMarkets } from "../src/venue/read-markets.js";
import { readOrders } from "../src/venue/read-orders.js";
import { bodyWalk } from "../src/venue/walk.js";
import { objectWalk } from "./helpers/fixtures.js";
import { fields } from "./helpers/redactor.js";

/** Every value of the wrong kind: an object where a number, label, flag or time is expected. */
const BAD = { nested: true };

/** Fields reported while reading `body` with at most 2 items of its list. */
async function reported(body: unknown, read: (walk: ReturnType<typeof bodyWalk>, report: (field: string) => void) => Promise<unknown>): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = bodyWalk(Buffer.from(JSON.stringify(body)), new URL("http://venue.test/"), { maxItems: 2, signal: new AbortController().signal });
  await read(walk, (field) => names.add(field));
  return names;
}

describe("the fields each reader knows", () => {
  it("are exactly the fields it reports for a body malformed everywhere (so the list cannot drift from the reader)", async () => {
    // Orders: a non-object item, an order with every field malformed, and one past the cap of 2.
    const orderBody = [
      42,
      { createdAt: "soon", rejectionReason: { code: BAD }, ...Object.fromEntries(KNOWN_INVALID_FIELDS.orders_active.map((f) => [f, BAD])) },
      {},
    ];
    for (const endpoint of ["orders_active", "orders_history"] as const) {
      const got = await reported(orderBody, (walk, report) => readOrders(walk, fields, endpoint, report));
      expect([...got].sort(), endpoint).toEqual([...KNOWN_INVALID_FIELDS[endpoint]].sort());
    }
    const settings = Object.fromEntries(KNOWN_INVALID_FIELDS.markets.filter((f) => f.startsWith("settings.")).map((f) => [f.slice("settings.".length), BAD]));
    const marketBody = [42, { id: "A-USD", name: BAD, assetId: BAD, collateralAssetId: BAD, status: BAD, settings }, { id: BAD }, {}, {}];
    const markets = await reported(marketBody, (walk, report) => readMarkets(walk, fields, report));
    // A settings object that is not one, and a repeated id, are reported too.
    const more = await reported(
      [
        { id: "A-USD", settings: 5 },
        { id: "A-USD", settings: {} },
      ],
      (walk, report) => readMarkets(walk, fields, report),
    );
    expect([...new Set([...markets, ...more])].sort()).toEqual([...KNOWN_INVALID_FIELDS.markets].sort());

    const position = Object.fromEntries(
      KNOWN_INVALID_FIELDS.account_info.filter((f) => f.startsWith("positions[].")).map((f) => [f.slice("positions[].".length), BAD]),
    );
    const top = Object.fromEntries(KNOWN_INVALID_FIELDS.account_info.filter((f) => !f.includes("[")).map((f) => [f, BAD]));
    const detailed = await reported({ ...top, positions: [42, position, {}] }, (walk, report) => readAccountInfo(walk, fields, "USDC", report));
    const summary = await reported({ ...top }, (walk, report) => readAccountInfo(walk, fields, "USDC", report));
    expect([...new Set([...detailed, ...summary])].sort()).toEqual([...KNOWN_INVALID_FIELDS.account_info].sort());
  });

  it("start at 0 in trading_exporter_invalid_fields_total, every endpoint and field, before any collection", async () => {
    const text = await new SelfMetrics({ defaultMetrics: false }).registry.metrics();
    const series = text.split("\n").filter((l) => l.startsWith("trading_exporter_invalid_fields_total{"));
    const expected = ENDPOINTS.flatMap((endpoint) =>
      KNOWN_INVALID_FIELDS[endpoint].map((field) => `trading_exporter_invalid_fields_total{endpoint="${endpoint}",field="${field}"} 0`),
    );
    expect(series.sort()).toEqual(expected.sort());
    // Bounded: a fixed set, whatever the venue sends.
    expect(series.length).toBeLessThan(120);
  });

  it("every _total family of the exporter's own is present at 0 before any event", async () => {
    const text = await new SelfMetrics({ defaultMetrics: false }).registry.metrics();
    const families = [...text.matchAll(/^# TYPE (\S+_total) counter$/gm)].map((m) => m[1]!);
    expect(families.length).toBeGreaterThan(5);
    // upstream_requests_total is by HTTP status, which the venue chooses: it appears with its first answer.
    for (const family of families.filter((f) => f !== "trading_exporter_upstream_requests_total")) {
      const samples = text.split("\n").filter((l) => l.startsWith(`${family} `) || l.startsWith(`${family}{`));
      expect(samples.length, family).toBeGreaterThan(0);
      for (const sample of samples) expect(sample.endsWith(" 0"), sample).toBe(true);
    }
  });
});

describe("an empty rejection code", () => {
  it("is no rejection and no invalid field; a code-less or malformed reason still is invalid", async () => {
    const reported: string[] = [];
    const order = (rejectionReason: unknown) => ({
      id: "1",
      marketId: "A-USD",
      type: "LIMIT",
      side: "BUY",
      direction: "LONG",
      status: "FILLED",
      isPendingExpiration: false,
      isPendingCancellation: false,
      isPendingRejection: false,
      price: 1,
      quantity: 1,
      quantityLocked: 0,
      quantityFilled: 1,
      createdAt: 1_700_000_000_000,
      rejectionReason,
    });
    const orders = await readOrders(
      objectWalk([
        order({ code: "", message: "" }),
        order({ code: null, message: null }),
        order(null),
        order({ code: "MARGIN", message: "no" }),
        order({ message: "no code" }),
        order("text"),
      ]),
      fields,
      "orders_history",
      (field) => reported.push(field),
    );
    expect(orders.map((o) => o.rejectionCode)).toEqual([undefined, undefined, undefined, "MARGIN", undefined, undefined]);
    expect(reported).toEqual(["rejectionReason.code", "rejectionReason.code"]);
  });
});
