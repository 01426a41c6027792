// No run of 12 or more characters of a configured secret survives, wherever the venue echoes it and
// however a label cut would shorten it; values that become equal make one series.

import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService, type Service } from "../src/lifecycle.js";
import { WINDOW } from "../src/util/redact.js";
import { parseExposition } from "./helpers/exposition.js";
import { leaks } from "./helpers/echoing-venue.js";
import { position, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";
import { fields, redactor } from "./helpers/redactor.js";

const SECRET_CHARS = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=é☃");
const secretArb = fc.string({ unit: SECRET_CHARS, minLength: 16, maxLength: 512 });
const noise = fc.string({ unit: fc.constantFrom(..." ,:{}[]\"'abcxyz0189\n"), maxLength: 60 });

describe("redaction of any 12-character run of a secret", () => {
  it("finds a run of any length at any offset, with anything around it", () => {
    fc.assert(
      fc.property(secretArb, fc.nat(), fc.nat(), noise, noise, (secret, a, b, before, after) => {
        redactor.hold([secret]);
        const length = WINDOW + (b % (secret.length - WINDOW + 1));
        const start = a % (secret.length - length + 1);
        const text = `${before}${secret.slice(start, start + length)}${after}`;
        expect(leaks(redactor.redact(text), secret)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it("finds several runs of several secrets in one text", () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }),
        (secrets, cuts) => {
          redactor.hold(secrets);
          const pieces = cuts.map(([i, at], n) => {
            const secret = secrets[i % secrets.length]!;
            const start = at % (secret.length - WINDOW + 1);
            return `piece ${n}: ${secret.slice(start, start + WINDOW + (at % 40))};`;
          });
          const out = redactor.redact(pieces.join(" "));
          for (const secret of secrets) expect(leaks(out, secret)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("finds short secrets whole in one pass however many there are", () => {
    // Many short forms, several of one length: each is found wherever it stands.
    const shorts = Array.from({ length: 40 }, (_, i) => `k${i}-${"abcdefghij".slice(0, 2 + (i % 7))}`);
    redactor.hold(shorts);
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), noise, (picks, around) => {
        const chosen = picks.map((i) => shorts[i % shorts.length]!);
        const out = redactor.redact(chosen.map((s) => `${around}${s}`).join("|"));
        for (const s of chosen) expect(out).not.toContain(s);
      }),
      { numRuns: 200 },
    );
  });

  it("finds short secrets that overlap or hold a pattern's special characters, and nothing that only looks like them", () => {
    redactor.hold(["a.b*(c)|", "[x]+\\y", "abcd", "cdefg"]);
    expect(redactor.redact("1 a.b*(c)| 2 [x]+\\y 3 axb*(c)| xx]+\\y abcdefgh")).toBe("1 <secret> 2 <secret> 3 axb*(c)| xx]+\\y <secret>h");
  });

  it("redacts where a venue string is read, before a label value is cut, so the cut leaves no part of the secret", () => {
    const key = `K${"0123456789abcdefghij".repeat(9)}`;
    redactor.hold([key]);
    const label = fields.label(`${"x".repeat(10)}${key}`, "marketId", () => undefined)!;
    expect(label.length).toBeLessThanOrEqual(128);
    expect(leaks(label, key)).toEqual([]);
    expect(label).toContain("<secret>");
  });

  it("leaves text without a secret as it was", () => {
    redactor.hold(["an-entirely-different-secret-value"]);
    const text = 'trading_market_status{market_id="BTC-USD",status="TRADABLE"} 1';
    expect(redactor.redact(text)).toBe(text);
  });
});

describe("a venue that echoes the API key", () => {
  // A 180-character key, echoed whole, cut and in parts as market ids and position markets.
  const KEY = Array.from({ length: 180 }, (_, i) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[(i * 7) % 62]).join("");
  let venue: TinyVenue | undefined;
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close(0);
    await venue?.close();
    service = undefined;
    venue = undefined;
  });

  const market = (id: string) => ({
    id,
    name: id,
    assetId: "A",
    collateralAssetId: "USDC",
    status: "TRADABLE",
    settings: { maxLeverage: 10, minLeverage: 1, initialMarginFraction: 0.1, maintenanceMarginFraction: 0.05 },
  });

  it("shows no 12-character run of it in /metrics, /probe or the debug page, and no series twice", async () => {
    const echoes = [KEY, KEY.slice(0, 150), KEY.slice(20, 60), `prefix-${KEY.slice(100)}`, KEY.slice(7, 19)];
    venue = await startTinyVenue({
      markets: echoes.map(market),
      account: {
        collateralBalance: "100",
        availableMargin: "50",
        totalInvested: "10",
        totalMargin: "100",
        totalUnrealizedPnl: "0",
        positions: echoes.map((id) => position(id)),
      },
    });
    const config = configFromEnv({
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: KEY,
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_ACCOUNT: "acct",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    });
    service = await startService(config, createLogger("error", undefined, [], "json", redactor), {
      redactor,
      self: new SelfMetrics({ defaultMetrics: false }),
    });
    for (const path of ["/metrics", "/probe?target=acct", "/probe?target=acct&debug=true"]) {
      const text = await (await fetch(new URL(path, service.server.url))).text();
      expect(leaks(text, KEY), path).toEqual([]);
      expect(text, path).toContain("<secret>");
      if (!path.includes("debug")) {
        const keys = parseExposition(text).map((s) => `${s.name}${JSON.stringify(s.labels)}`);
        expect(keys.length - new Set(keys).size, path).toBe(0);
      }
    }
  });
});
