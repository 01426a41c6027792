// The exporter against a venue of the tests' own that breaks the reference's silences: paging that
// ignores offset or limit, odd strings, unset times, long decimals, bodies that cannot be decoded.

import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService, type Service } from "../src/lifecycle.js";
import { parseExposition, valueOf, type ParsedSample } from "./helpers/exposition.js";
import { checkMetrics } from "./helpers/promtool.js";
import { ACTIVE, HISTORY, order, position, startTinyVenue, type Paging, type TinyVenue, type TinyVenueOptions } from "./helpers/tiny-venue.js";
import { redactor } from "./helpers/redactor.js";

const MAX_ORDERS = 1000;
const PAGE_SIZE = 100;
const BOUND = Math.ceil(MAX_ORDERS / PAGE_SIZE);

interface Rig {
  venue: TinyVenue;
  service: Service;
  logs: string[];
  /** One scrape: its text, parsed samples, and the history requests it cost the venue. */
  scrape(): Promise<{ text: string; samples: ParsedSample[]; historyRequests: number }>;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.service.close(1000);
  await rig?.venue.close();
  rig = undefined;
});

async function start(options: TinyVenueOptions, env: Record<string, string> = {}): Promise<Rig> {
  const venue = await startTinyVenue(options);
  const config = configFromEnv({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "acct",
    TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    TRADING_HISTORY_MAX_ORDERS: String(MAX_ORDERS),
    TRADING_HISTORY_PAGE_SIZE: String(PAGE_SIZE),
    // Each test changes the venue's answers between scrapes: every scrape collects.
    TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0",
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const service = await startService(config, createLogger("info", sink, [], "json", redactor), { redactor, self: new SelfMetrics({ defaultMetrics: false }) });
  rig = {
    venue,
    service,
    logs,
    async scrape() {
      venue.reset();
      const res = await fetch(new URL("/metrics", service.server.url));
      expect(res.status).toBe(200);
      const text = await res.text();
      return { text, samples: parseExposition(text), historyRequests: venue.requests.get(HISTORY) ?? 0 };
    },
  };
  return rig;
}

/** Every sample's name and labels, as a key: a repeat means two series share a label set. */
function duplicateSeries(samples: ParsedSample[]): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const s of samples) {
    const key = `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;
    if (seen.has(key)) repeated.push(key);
    seen.add(key);
  }
  return repeated;
}

const orders = (n: number, from = 1): Array<Record<string, unknown>> => Array.from({ length: n }, (_, i) => order(from + i));
const acct = { account: "acct" };
const history = { endpoint: "orders_history", account: "acct" };

describe("history paging within the bound, whatever the venue does", () => {
  // `later`: the requests of each read after the first, which asks the first one's page count at once.
  type Want = { requests: number; later?: number; fetched: number; truncated: number; anomalies: Record<string, number> };
  const cases: Array<[string, Paging, number, Want]> = [
    ["a well-behaved venue, more orders than the cap", {}, 2500, { requests: 10, fetched: 1000, truncated: 1, anomalies: {} }],
    ["a well-behaved venue, fewer orders than the cap", {}, 250, { requests: 3, fetched: 250, truncated: 0, anomalies: {} }],
    ["a venue that ignores offset", { ignoreOffset: true }, 2500, { requests: 3, later: 2, fetched: 100, truncated: 1, anomalies: { no_progress: 1 } }],
    ["a venue that ignores limit", { ignoreLimit: true }, 2500, { requests: 1, fetched: 1000, truncated: 1, anomalies: { more_than_asked: 1 } }],
    [
      "a venue that ignores limit, all of it fitting",
      { ignoreLimit: true },
      400,
      { requests: 2, fetched: 400, truncated: 0, anomalies: { more_than_asked: 1 } },
    ],
    [
      "a venue that ignores offset and limit",
      { ignoreOffset: true, ignoreLimit: true },
      400,
      { requests: 2, fetched: 400, truncated: 1, anomalies: { more_than_asked: 2, no_progress: 1 } },
    ],
    ["a venue whose pages overlap", { overlap: 50 }, 2500, { requests: 10, fetched: 950, truncated: 1, anomalies: { overlap: 1 } }],
    ["a venue that sends more than asked", { extra: 50 }, 2500, { requests: 7, fetched: 1000, truncated: 1, anomalies: { more_than_asked: 7 } }],
  ];

  for (const [name, paging, total, want] of cases) {
    it(`${name}: ${want.requests} requests${want.later === undefined ? "" : `, then ${want.later}`} (bound ${BOUND}), the orders read exported`, async () => {
      const r = await start({ history: orders(total), paging });
      for (let scrape = 0, sent = 0; scrape < 2; scrape++) {
        const { text, samples } = await r.scrape();
        const requests = scrape === 0 ? want.requests : (want.later ?? want.requests);
        sent += requests;
        // A page asked past the end may reach the venue after the answer: it is counted once it has.
        await expect.poll(() => r.venue.requests.get(HISTORY) ?? 0).toBe(requests);
        expect(r.venue.requests.get(HISTORY)).toBeLessThanOrEqual(BOUND);
        expect(valueOf(samples, "trading_scrape_success", history)).toBe(1);
        expect(valueOf(samples, "trading_order_history_fetched_orders", acct)).toBe(want.fetched);
        expect(valueOf(samples, "trading_order_history_truncated", acct)).toBe(want.truncated);
        for (const kind of ["no_progress", "overlap", "more_than_asked"]) {
          expect(valueOf(samples, "trading_exporter_history_paging_anomalies_total", { kind })).toBe((want.anomalies[kind] ?? 0) * (scrape + 1));
        }
        const counted = valueOf(samples, "trading_exporter_upstream_requests_total", { endpoint: "orders_history", code: "200" });
        expect(counted).toBeGreaterThan(sent - requests);
        expect(counted).toBeLessThanOrEqual(sent);
        expect(duplicateSeries(samples)).toEqual([]);
        expect(checkMetrics(text)).toBe("");
      }
      // Warned once when the anomaly first showed, not on every scrape.
      const warnings = r.logs.filter((l) => l.includes("history paging misbehaves"));
      expect(warnings.length).toBe(Object.keys(want.anomalies).length > 0 ? 1 : 0);
    });
  }

  it("spends the same bound on retries: a 5xx retried costs a page, never a request more", async () => {
    const r = await start({ history: orders(2500), failHistory: 1 });
    const { samples, historyRequests } = await r.scrape();
    expect(historyRequests).toBe(BOUND);
    expect(valueOf(samples, "trading_exporter_upstream_requests_total", { endpoint: "orders_history", code: "503" })).toBe(1);
    expect(valueOf(samples, "trading_order_history_fetched_orders", acct)).toBe(900);
    expect(valueOf(samples, "trading_order_history_truncated", acct)).toBe(1);
  });

  it("shows the paging in the debug probe", async () => {
    const r = await start({ history: orders(300), paging: { ignoreOffset: true } });
    const res = await fetch(new URL("/probe?target=acct&debug=true", r.service.server.url));
    const text = await res.text();
    expect(text).toContain("history: 100 orders, cut short (cap, request bound or paging anomaly); paging anomalies: no_progress x1");
  });

  it("logs again only when the venue's paging changes, and says when it behaves", async () => {
    const r = await start({ history: orders(300), paging: { ignoreOffset: true } });
    await r.scrape();
    await r.scrape();
    r.venue.options.paging = {};
    // The last read's 2 pages at once, both full; then 2 more, the second of them empty.
    const { historyRequests } = await r.scrape();
    expect(historyRequests).toBe(4);
    await r.scrape();
    expect(r.logs.filter((l) => l.includes("history paging misbehaves")).length).toBe(1);
    expect(r.logs.filter((l) => l.includes("history paging behaves again")).length).toBe(1);
  });
});

describe("a body that cannot be decoded is a body problem", () => {
  const json = Buffer.from(JSON.stringify([order(1)]));
  const flip = (bytes: Buffer, at: number): Buffer => {
    const copy = Buffer.from(bytes);
    copy[copy.length - at] = copy[copy.length - at]! ^ 0xff;
    return copy;
  };
  // Long once compressed (each order carries a hash), so the decoder meets the spoiled bytes mid-transfer.
  const large = Buffer.from(JSON.stringify(orders(3000).map((o) => ({ ...o, clientOrderId: createHash("sha256").update(String(o.id)).digest("hex") }))));
  const spoilHalfway = (bytes: Buffer): Buffer => {
    const copy = Buffer.from(bytes);
    for (let at = copy.length >> 1; at < (copy.length >> 1) + 64; at++) copy[at] = copy[at]! ^ 0xff;
    return copy;
  };
  const cases: Array<[string, string, Buffer, boolean?]> = [
    ["corrupt gzip", "gzip", flip(gzipSync(json), 6)],
    ["gzip cut short", "gzip", gzipSync(json).subarray(0, 12)],
    ["corrupt deflate", "deflate", flip(deflateSync(json), 2)],
    ["corrupt br", "br", Buffer.from("this is not brotli at all, not even close")],
    ["an encoding never asked for", "zstd", json],
    ["gzip corrupt halfway", "gzip", spoilHalfway(gzipSync(large))],
    ["deflate corrupt halfway", "deflate", spoilHalfway(deflateSync(large))],
    ["br corrupt halfway", "br", spoilHalfway(brotliCompressSync(large))],
    // The answer still open when the decoder fails: the transfer is cut, not ended.
    ["gzip corrupt halfway, its end never sent", "gzip", spoilHalfway(gzipSync(large)), true],
    ["deflate corrupt halfway, its end never sent", "deflate", spoilHalfway(deflateSync(large)), true],
    ["br corrupt halfway, its end never sent", "br", spoilHalfway(brotliCompressSync(large)), true],
  ];
  for (const [name, encoding, body, open] of cases) {
    it(`${name}: reason invalid_encoding on that endpoint alone`, async () => {
      const r = await start({
        history: orders(3),
        raw: {
          [ACTIVE]: { headers: { "content-type": "application/json", "content-encoding": encoding }, body, open: open === true },
          // A good br body decodes: only the corrupt one fails.
          "/v1/public/markets": { headers: { "content-type": "application/json", "content-encoding": "br" }, body: brotliCompressSync("[]") },
        },
      });
      const { text, samples } = await r.scrape();
      expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active", account: "acct" })).toBe(0);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "invalid_encoding" })).toBe(1);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "network" })).toBe(0);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_history", reason: "invalid_encoding" })).toBe(0);
      expect(valueOf(samples, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
      expect(valueOf(samples, "trading_scrape_success", history)).toBe(1);
      // Not retried: the bytes arrived whole, asking again would bring the same.
      expect(r.venue.requests.get(ACTIVE)).toBe(1);
      const log = r.logs.find((l) => l.includes("venue endpoint failing")) ?? "";
      expect(log).toContain('"reason":"invalid_encoding"');
      expect(log).not.toMatch(/Z_DATA_ERROR|Z_BUF_ERROR|ERR__ERROR|incorrect header|unexpected end/i);
      expect(duplicateSeries(samples)).toEqual([]);
      expect(checkMetrics(text)).toBe("");
    });
  }
});

describe("a status of no HTTP class is an HTTP failure", () => {
  for (const status of [600, 799, 999]) {
    it(`${status}: reason http_5xx, retried once as a 5xx, counted under its code`, async () => {
      const r = await start({ history: orders(3), raw: { [ACTIVE]: { status, headers: { "content-type": "application/json" }, body: "[]" } } });
      const { text, samples } = await r.scrape();
      expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active", account: "acct" })).toBe(0);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "http_5xx" })).toBe(1);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "network" })).toBe(0);
      expect(valueOf(samples, "trading_exporter_upstream_requests_total", { endpoint: "orders_active", code: String(status) })).toBe(2);
      expect(r.venue.requests.get(ACTIVE)).toBe(2);
      expect(valueOf(samples, "trading_scrape_success", history)).toBe(1);
      const log = r.logs.find((l) => l.includes("venue endpoint failing")) ?? "";
      expect(log).toContain('"reason":"http_5xx"');
      expect(log).toContain(`HTTP ${status}`);
      expect(checkMetrics(text)).toBe("");
    });
  }
});

describe("an unset time never hides a market", () => {
  it("skips orders with createdAt 0, negative, null or missing, counts them apart from malformed ones", async () => {
    const { createdAt: _left, ...noTime } = order(5);
    const withTimes = [
      order(1, { marketId: "BTC-USD", createdAt: 0 }),
      order(2, { marketId: "BTC-USD", createdAt: 1_700_000_100_000 }),
      order(3, { marketId: "BTC-USD", createdAt: -1 }),
      order(4, { marketId: "BTC-USD", createdAt: 1_700_000_050_000 }),
      { ...noTime, marketId: "BTC-USD" },
      order(6, { marketId: "BTC-USD", createdAt: null }),
      order(7, { marketId: "BTC-USD", createdAt: "soon" }),
      order(8, { marketId: "ETH-USD", createdAt: 0 }),
    ];
    const r = await start({ active: withTimes, history: withTimes });
    const { text, samples } = await r.scrape();
    const btc = { account: "acct", market_id: "BTC-USD" };
    // Orders without a usable time (unset or malformed) are left out of the times alone.
    expect(valueOf(samples, "trading_active_orders_oldest_created_timestamp_seconds", btc)).toBe(1_700_000_050);
    expect(valueOf(samples, "trading_order_history_last_created_timestamp_seconds", btc)).toBe(1_700_000_100);
    // A market whose orders all lack a time has no time series, and still its counts.
    expect(samples.filter((s) => s.name.endsWith("_created_timestamp_seconds") && s.labels.market_id === "ETH-USD")).toEqual([]);
    expect(valueOf(samples, "trading_active_orders", { market_id: "ETH-USD" })).toBe(1);
    for (const endpoint of ["orders_active", "orders_history"]) {
      expect(valueOf(samples, "trading_exporter_unset_fields_total", { endpoint, field: "createdAt" })).toBe(5);
      expect(valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint, field: "createdAt" })).toBe(1);
    }
    expect(duplicateSeries(samples)).toEqual([]);
    expect(checkMetrics(text)).toBe("");
  });
});

describe("label values are well-formed, and no two series share a label set", () => {
  const market = (id: string, tickSize: number, name = "Same name"): Record<string, unknown> => ({
    id,
    name,
    assetId: "A",
    collateralAssetId: "USD",
    status: "TRADABLE",
    metadataUrl: "",
    metadata: {},
    settings: {
      tickSize,
      tickPrecision: 1,
      stepSize: 1,
      stepPrecision: 0,
      minOrderSize: 1,
      minLeverage: 1,
      maxLeverage: 10,
      maintenanceMarginFraction: 0.05,
      initialMarginFraction: 0.1,
      incrementalInitialMarginFraction: 0.01,
      incrementalPositionSize: 1,
      baselinePositionSize: 1,
      maxPositionSize: 1,
      currentlyAllowedLeverage: 10,
    },
  });

  it("replaces lone surrogates before grouping, keeps the first of two markets that become one, and counts the rest", async () => {
    const active = [...[1, 2, 3].map((i) => order(i, { marketId: "A\ud800B" })), ...[4, 5, 6, 7].map((i) => order(i, { marketId: "A\udbffB" }))];
    const long = `${"x".repeat(127)}\u{1F600}tail`;
    const r = await start({
      active,
      markets: [market("M\ud800", 0.5), market("M\udc00", 0.25), market(long, 1, long)],
    });
    const { text, samples } = await r.scrape();
    // Both strings are "A\uFFFDB" once well-formed: one group of all seven orders, not two series alike.
    expect(samples.filter((s) => s.name === "trading_active_orders").map((s) => [s.labels.market_id, s.value])).toEqual([["A\uFFFDB", 7]]);
    // Two markets, one id once well-formed: the first wins, the repeat is counted as a bad id, and
    // the last guard (de-duplication of the final label sets) finds nothing left to drop.
    expect(valueOf(samples, "trading_market_tick_size", { market_id: "M\uFFFD" })).toBe(0.5);
    expect(valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint: "markets", field: "id" })).toBe(1);
    expect(valueOf(samples, "trading_exporter_series_duplicates_dropped_total")).toBe(0);
    // Cut at 128 UTF-16 units would split the emoji's pair: it is cut before it instead.
    expect(valueOf(samples, "trading_market_tick_size", { market_id: "x".repeat(127) })).toBe(1);
    expect(text.includes("\ud83d")).toBe(false);
    expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
    expect(duplicateSeries(samples)).toEqual([]);
    expect(checkMetrics(text)).toBe("");
  });
});

describe("bidirectional controls never reach an answer", () => {
  // Each control, in a market id, a direction, an order's fields and a market's: read in a browser or
  // a terminal, a raw one would reverse the rest of the line, the sample value included ("96" as "69").
  const CONTROLS = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"];
  const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

  it("replaces them in /metrics, /probe and the debug probe, counts each field, and keeps the value beside them exact", async () => {
    const atMarket = (marketId: string, direction: string) => position(marketId, { direction, avgExecutionPrice: "100", liquidationPrice: "96" });
    const r = await start({
      account: {
        collateralBalance: "100",
        availableMargin: "50",
        totalInvested: "10",
        totalMargin: "100",
        totalUnrealizedPnl: "0",
        positions: [atMarket("BTC-USD\u202E GNOL", "\u202ETROHS"), ...CONTROLS.map((c, i) => atMarket(`M${i}${c}X`, "LONG"))],
      },
      active: CONTROLS.map((c, i) => order(i + 1, { marketId: `ETH${c}-USD`, side: `BUY${c}` })),
      markets: [
        { id: "BTC-USD\u2066 GNOL", name: "\u2067name", assetId: "A", collateralAssetId: "USD", status: "TRADABLE\u200F", settings: { tickSize: 0.5 } },
      ],
    });
    const { text, samples } = await r.scrape();
    const probe = await (await fetch(new URL("/probe?target=acct", r.service.server.url))).text();
    const debug = await (await fetch(new URL("/probe?target=acct&debug=true", r.service.server.url))).text();
    for (const [where, answer] of [
      ["/metrics", text],
      ["/probe", probe],
      ["debug probe", debug],
    ] as const) {
      expect(BIDI.test(answer), where).toBe(false);
      expect(answer, where).toContain("BTC-USD\uFFFD GNOL");
    }
    // The value beside the replaced labels is the venue's, exactly.
    expect(valueOf(samples, "trading_position_liquidation_price", { market_id: "BTC-USD\uFFFD GNOL", direction: "\uFFFDTROHS" })).toBe(96);
    expect(valueOf(parseExposition(probe), "trading_position_liquidation_price", { market_id: "BTC-USD\uFFFD GNOL", direction: "\uFFFDTROHS" })).toBe(96);
    expect(valueOf(samples, "trading_market_tick_size", { market_id: "BTC-USD\uFFFD GNOL" })).toBe(0.5);
    const invalid = (endpoint: string, field: string): number | undefined => valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint, field });
    expect(invalid("account_info", "positions[].marketId")).toBe(1 + CONTROLS.length);
    expect(invalid("account_info", "positions[].direction")).toBe(1);
    expect([invalid("orders_active", "marketId"), invalid("orders_active", "side")]).toEqual([CONTROLS.length, CONTROLS.length]);
    expect([invalid("markets", "id"), invalid("markets", "name"), invalid("markets", "status")]).toEqual([1, 1, 1]);
    expect(duplicateSeries(samples)).toEqual([]);
    expect(checkMetrics(text)).toBe("");
  });
});

describe("derived values come from the decimals as written", () => {
  it("an 18-digit JSON number or decimal string times 1.1 is the exact product rounded once, read once", async () => {
    const active = [
      order(1, { price: Number("123456789012345678"), quantity: 1.1 }),
      // A JSON number beyond a double's digits forces a second parse that keeps its text: the
      // malformed field beside it must still be counted once.
      order(2, { marketId: "ETH-USD", price: "1.5", quantity: "abc" }),
    ];
    const r = await start({
      active: [],
      account: {
        collateralBalance: "1",
        availableMargin: "1",
        totalInvested: "0",
        totalMargin: "1000",
        totalUnrealizedPnl: "0",
        positions: [
          {
            marketId: "BTC-USD",
            direction: "LONG",
            size: "123456789012345678",
            avgExecutionPrice: "1.1",
            marginAmount: "1",
            borrowedAmount: "0",
            leverage: "1",
            realizedPnl: "0",
            liquidationPrice: "0.9",
            maintenanceMargin: "1",
          },
        ],
      },
    });
    // The body is written by hand: JSON.stringify would print the number as the double it became.
    const text = JSON.stringify(active).replace('"price":123456789012345680', '"price":123456789012345678');
    expect(text).toContain('"price":123456789012345678,');
    r.venue.options.raw = { [ACTIVE]: { headers: { "content-type": "application/json" }, body: text } };
    const { text: exposition, samples } = await r.scrape();
    expect(Number("123456789012345678") * 1.1).not.toBe(Number("135802467913580245.8"));
    expect(valueOf(samples, "trading_active_orders_notional", { market_id: "BTC-USD" })).toBe(Number("135802467913580245.8"));
    expect(valueOf(samples, "trading_position_notional", { market_id: "BTC-USD" })).toBe(Number("135802467913580245.8"));
    expect(valueOf(samples, "trading_exporter_invalid_fields_total", { endpoint: "orders_active", field: "quantity" })).toBe(1);
    expect(duplicateSeries(samples)).toEqual([]);
    expect(checkMetrics(exposition)).toBe("");
  });
});
