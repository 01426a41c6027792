// A secret that holds JSON escapes, echoed by the venue unescaped into its JSON, is read as other text;
// the escaping on the way out (label values, JSON log lines) must not write it back. And a digits-only
// secret echoed as a JSON number is redacted like a string.

import { Writable } from "node:stream";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { ScrapeResult } from "../src/scrape/result.js";
import { summarizeActive, summarizeHistory } from "../src/scrape/order-summary.js";
import { configFromObject } from "./helpers/config-files.js";
import { collectFamilies } from "./helpers/fixtures.js";
import { createLogger } from "../src/log.js";
import { renderText } from "./helpers/render-text.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { WINDOW } from "../src/util/redact.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import { readMarkets } from "../src/venue/read-markets.js";
import { readOrders } from "../src/venue/read-orders.js";
import { bodyWalk } from "../src/venue/walk.js";
import { leaks } from "./helpers/echoing-venue.js";
import { ACCOUNT, ACTIVE, HISTORY, MARKETS, order, position, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";
import { fields, redactor } from "./helpers/redactor.js";

/** How the venue writes each echoed value into its JSON: as a string, its text put between quotes unescaped; or as a number. */
type Echo = { raw: string } | { number: string };

/**
 * `value` as JSON text, each `Echo` in it written by hand as a venue that builds JSON by pasting would:
 * escapes in the echoed text are read as escapes by the exporter's parse.
 */
function pasted(value: unknown): string {
  const echoes: Echo[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "object" || v === null || !("raw" in v || "number" in v)) return v;
    echoes.push(v as Echo);
    return `@@echo${echoes.length - 1}@@`;
  });
  return text.replace(/"@@echo(\d+)@@"/g, (_m, i: string) => {
    const echo = echoes[Number(i)]!;
    return "raw" in echo ? `"${echo.raw}"` : echo.number;
  });
}

/** A number echoed in the numeric fields too, where a sample would write it. */
const numbers = (e: Echo, fields: string[]) => ("number" in e ? Object.fromEntries(fields.map((f) => [f, e])) : {});
const market = (id: Echo) => ({ id, name: id, assetId: id, collateralAssetId: "USDC", status: id, settings: { tickSize: 1, ...numbers(id, ["maxLeverage"]) } });
const orderOf = (i: number, e: Echo) =>
  order(i, { id: e, marketId: e, type: e, side: e, direction: e, status: e, rejectionReason: { code: e, message: e }, ...numbers(e, ["price", "createdAt"]) });
const account = (echoes: Echo[]) => ({
  collateralBalance: "1",
  availableMargin: "1",
  totalInvested: "0",
  totalMargin: "1",
  totalUnrealizedPnl: "0",
  // A number's position has a direction of its own, so it is not a repeat of a string's that reads as <secret> too.
  positions: echoes.map((e) => position("", { marketId: e, direction: "number" in e ? "LONG" : e, ...numbers(e, ["size", "leverage"]) })),
});

/** The four answers of a venue that echoes `echoes` in every string it sends. */
function bodies(echoes: Echo[]) {
  return {
    account: pasted(account(echoes)),
    orders: pasted(echoes.map((e, i) => orderOf(i + 1, e))),
    markets: pasted(echoes.map(market)),
  };
}

/** The bodies read by the exporter's own parse and readers, as one collection. */
async function collected(b: ReturnType<typeof bodies>): Promise<ScrapeResult> {
  const signal = new AbortController().signal;
  const walk = (text: string) => bodyWalk(Buffer.from(text), new URL("http://venue.test/"), { maxItems: 10_000, signal });
  const ignore = () => undefined;
  const info = await readAccountInfo(walk(b.account), fields, "USDC", ignore);
  const active = await readOrders(walk(b.orders), fields, "orders_active", ignore);
  const history = await readOrders(walk(b.orders), fields, "orders_history", ignore);
  const markets = await readMarkets(walk(b.markets), fields, ignore);
  const ok = (endpoint: "account_info" | "orders_active" | "orders_history" | "markets") => ({
    endpoint,
    account: endpoint === "markets" ? undefined : "acct",
    ok: true,
    durationSeconds: 0.1,
    reason: undefined,
    message: undefined,
  });
  return {
    collectedAt: 0,
    accounts: [
      {
        account: "acct",
        startedAt: 0,
        outcomes: [ok("account_info"), ok("orders_active"), ok("orders_history")],
        accountInfos: [info],
        activeOrders: summarizeActive({ orders: active, limit: 1000 }),
        history: summarizeHistory({ orders: history, truncated: false, askNext: 1, anomalies: {} }),
      },
    ],
    markets: { outcome: ok("markets"), markets, readAt: 0, maxAgeSeconds: 60 },
    marketFamilies: true,
  };
}

/** What leaves the exporter of one collection: its exposition, and the read values as a JSON log line writes them. */
async function shown(echoes: Echo[]): Promise<{ text: string; scrape: ScrapeResult }> {
  const scrape = await collected(bodies(echoes));
  return { text: `${renderText(collectFamilies(scrape))}\n${JSON.stringify(scrape, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`, scrape };
}

const PLAIN = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=");
/** A JSON escape as it stands in the secret's own text, which the venue's JSON then holds unescaped. */
const ESCAPE = fc.oneof(
  fc.constantFrom("\\n", '\\"', "\\\\", "\\t", "\\r", "\\b", "\\f", "\\/"),
  fc.tuple(fc.integer({ min: 0, max: 0xff }), fc.boolean()).map(([c, upper]) => {
    const hex = c.toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  }),
);
/** A secret as its pieces (a plain character or one escape), so a venue's cut of it is still valid JSON. */
const secretTokens = fc
  .array(fc.oneof({ weight: 3, arbitrary: PLAIN }, { weight: 2, arbitrary: ESCAPE }), { minLength: 8, maxLength: 60 })
  .filter((tokens) => tokens.some((t) => t.startsWith("\\")) && tokens.join("").length >= 16);

/** The tokens from `start` on, as few as make at least `length` characters; the whole secret when too few are left. */
function run(tokens: readonly string[], start: number, length: number): string {
  let text = "";
  for (let i = start % tokens.length; i < tokens.length && text.length < length; i++) text += tokens[i];
  return text.length >= WINDOW ? text : tokens.join("");
}

describe("a secret with JSON escapes, echoed unescaped", () => {
  it("leaves no 12-character run of it in the exposition or a JSON log line, whole or cut", async () => {
    await fc.assert(
      fc.asyncProperty(secretTokens, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 40 })), { maxLength: 4 }), noise(), async (tokens, cuts, around) => {
        const secret = tokens.join("");
        redactor.hold([secret]);
        const echoes: Echo[] = [secret, `${around}${secret}${around}`, ...cuts.map(([at, extra]) => `${around}${run(tokens, at, WINDOW + extra)}`)].map(
          (raw) => ({ raw }),
        );
        const { text, scrape } = await shown(echoes);
        // The venue's JSON stayed valid (else the readers throw), and the echoes were read.
        expect(scrape.markets?.markets?.length).toBeGreaterThan(0);
        expect(leaks(text, secret)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("turns the issue's key into <secret> in the label, not back into its text", async () => {
    const secret = "k3Y7\\nQz8Lm2Wp";
    redactor.hold([secret]);
    const { text } = await shown([{ raw: secret }]);
    expect(text).toContain('market_id="<secret>"');
    expect(leaks(text, secret)).toEqual([]);
  });

  it("leaves a value without escapes as it was", () => {
    redactor.hold(["k3Y7\\nQz8Lm2Wp"]);
    for (const value of ["BTC-USD", 'a "quoted"\nline \\ with escapes', "é☃\u0000"]) expect(fields.id(value)).toBe(value);
  });
});

/** Text a venue may put around an echo, escapes of its own included. */
function noise(): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(..." ,:abcxyz0189", "\\n", '\\"', "\\\\", "\\u0041"), maxLength: 6 });
}

describe("a digits-only secret echoed as a JSON number", () => {
  it("is redacted like a string, as an id or a label, and is no sample's value", async () => {
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: 10n ** 11n, max: 2n ** 53n - 1n }), async (n) => {
        const secret = String(n);
        redactor.hold([secret]);
        const { text } = await shown([{ number: secret }, { raw: `m-${secret}` }]);
        expect(text).toContain("<secret>");
        expect(leaks(text, secret)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it("reads the issue's market id as <secret>, and the key as no number", () => {
    redactor.hold(["836204719365"]);
    expect(fields.id(836204719365)).toBe("<secret>");
    expect(fields.number(836204719365)).toBeUndefined();
    expect(fields.number("836204719365.0")).toBeUndefined();
    expect(fields.id(1_700_000_000_000)).toBe("1700000000000");
    expect(fields.number(1_700_000_000_000)).toBe(1_700_000_000_000);
  });
});

describe("an exporter against a venue that pastes its keys into its JSON", () => {
  const KEY = 'k3Y7\\nQz8Lm2Wp\\"Rt5\\\\Vb9\\u0009Xc1';
  const NUMERIC = "836204719365";
  let venue: TinyVenue | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    await venue?.close();
    close = undefined;
    venue = undefined;
  });

  it("shows no 12-character run of either in /metrics, /probe, the debug probe or the log", async () => {
    // The number first: a market whose id reads as <secret> again is a repeat, left out.
    const echoes: Echo[] = [{ number: NUMERIC }, { raw: KEY }, { raw: `x-${KEY}-y` }, { raw: KEY.slice(0, 14) }, { raw: `id-${NUMERIC}` }];
    const b = bodies(echoes);
    const json = { "content-type": "application/json" };
    venue = await startTinyVenue({
      raw: {
        [ACCOUNT]: { headers: json, body: b.account },
        [ACTIVE]: { headers: json, body: b.orders },
        [HISTORY]: { headers: json, body: b.orders },
        [MARKETS]: { headers: json, body: b.markets },
      },
    });
    const config = configFromObject(
      {
        venue: { base_url: venue.url },
        web: { listen_address: "127.0.0.1:0" },
        accounts: [{ name: "acct", collateral_ids: ["USDC"], auth: { type: "api_key", key: KEY }, headers: { "X-Desk": NUMERIC } }],
      },
      {},
      "/",
    );
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString("utf8"));
        done();
      },
    });
    const service = await startService(config, createLogger("debug", sink, [], "json", redactor), {
      redactor,
      self: new SelfMetrics({ defaultMetrics: false }),
    });
    close = () => service.close(0);
    const seen: string[] = [];
    for (const path of ["/metrics", "/probe?target=acct", "/probe?target=acct&debug=true", "/"]) {
      const text = await (await fetch(new URL(path, service.server.url))).text();
      seen.push(text);
      expect(leaks(text, KEY), path).toEqual([]);
      expect(leaks(text, NUMERIC), path).toEqual([]);
    }
    // The echoes were read and shown, redacted: the venue's JSON was valid.
    expect(seen[0]).toMatch(/trading_market_status\{market_id="<secret>"/);
    expect(seen[0]).toMatch(/trading_position_size\{[^}]*market_id="id-<secret>"/);
    expect(leaks(logs.join(""), KEY)).toEqual([]);
    expect(leaks(logs.join(""), NUMERIC)).toEqual([]);
  });
});
