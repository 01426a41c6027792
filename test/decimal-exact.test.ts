// Derived values from the venue's decimals as written, against BigInt arithmetic: inputs of up to 30
// significant digits, as decimal strings and as JSON numbers, each result the nearest double.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maintenanceMargin, marginRatio, marginUsage } from "../src/collectors/account.js";
import { Aggregate } from "../src/scrape/group.js";
import { liquidationDistance, notional } from "../src/collectors/positions.js";
import { readAccountInfo } from "../src/venue/read-account.js";
import { readOrders } from "../src/venue/read-orders.js";
import { type ListWalk, bodyWalk } from "../src/venue/walk.js";
import { fields } from "./helpers/redactor.js";

/** An exact rational n/d, d > 0. */
type Rational = [bigint, bigint];

/** A decimal text and its exact value. */
interface Written {
  text: string;
  value: Rational;
}

const decimalText = fc
  .record({
    negative: fc.boolean(),
    // Every length from 1 to 30 digits alike: most past the 15 a double keeps.
    digits: fc.integer({ min: 1, max: 30 }).chain((n) => fc.bigInt({ min: 10n ** BigInt(n - 1), max: 10n ** BigInt(n) - 1n }).map(String)),
    point: fc.integer({ min: 0, max: 30 }),
  })
  .map(({ negative, digits, point }): Written => {
    const at = Math.min(point, digits.length);
    const int = digits.slice(0, digits.length - at) || "0";
    const frac = digits.slice(digits.length - at);
    const text = `${negative ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
    const mantissa = BigInt(digits) * (negative ? -1n : 1n);
    return { text, value: [mantissa, 10n ** BigInt(frac.length)] };
  });

/** The double x as an exact rational. */
function rationalOf(x: number): Rational {
  if (Number.isInteger(x)) return [BigInt(x), 1n];
  let den = 1n;
  let v = x;
  while (!Number.isInteger(v)) {
    v *= 2;
    den *= 2n;
  }
  return [BigInt(v), den];
}

function nextDouble(x: number, up: boolean): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const away = up === x >= 0;
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  view.setBigUint64(0, away ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

/** |a − b| as a rational. */
function distance([an, ad]: Rational, [bn, bd]: Rational): Rational {
  const n = an * bd - bn * ad;
  return [n < 0n ? -n : n, ad * bd];
}

const lessOrEqual = ([an, ad]: Rational, [bn, bd]: Rational): boolean => an * bd <= bn * ad;

/** Whether x is a nearest double to the exact value r (rounded once). */
function nearest(x: number, r: Rational): boolean {
  const here = distance(rationalOf(x), r);
  return [true, false].every((up) => lessOrEqual(here, distance(rationalOf(nextDouble(x, up)), r)));
}

const add = ([an, ad]: Rational, [bn, bd]: Rational): Rational => [an * bd + bn * ad, ad * bd];
const mul = ([an, ad]: Rational, [bn, bd]: Rational): Rational => [an * bn, ad * bd];
const abs = ([n, d]: Rational): Rational => [n < 0n ? -n : n, d];
const div = ([an, ad]: Rational, [bn, bd]: Rational): Rational => (bn < 0n ? [-an * bd, ad * -bn] : [an * bd, ad * bn]);

const ignore = (): void => undefined;

/** A body with the texts as decimal strings, or as JSON numbers read the way the client reads them. */
function body(json: string, asNumbers: boolean): ListWalk {
  const text = asNumbers ? json.replace(/"(-?[0-9.]+)"/g, "$1") : json;
  return bodyWalk(Buffer.from(text), new URL("http://venue.test/"), { maxItems: 1000, signal: new AbortController().signal });
}

function position(size: string, avg: string, liq: string, mm: string, direction = "LONG"): string {
  return `{"marketId":"M","direction":"${direction}","size":"${size}","avgExecutionPrice":"${avg}","liquidationPrice":"${liq}","maintenanceMargin":"${mm}","marginAmount":"1","borrowedAmount":"0","leverage":"1","realizedPnl":"0"}`;
}

describe("derived values are the exact decimals rounded once", () => {
  for (const asNumbers of [false, true]) {
    const form = asNumbers ? "JSON numbers" : "decimal strings";

    it(`notional, liquidation distance, maintenance margin, margin ratio and margin in use from ${form}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          decimalText,
          decimalText,
          decimalText,
          decimalText,
          decimalText,
          decimalText,
          fc.constantFrom("LONG", "SHORT"),
          async (size, avg, liq, mm, total, available, direction) => {
            const json = `{"collateralBalance":"1","availableMargin":"${available.text}","totalInvested":"1","totalMargin":"${total.text}","totalUnrealizedPnl":"0","positions":[${position(size.text, avg.text, liq.text, mm.text, direction)}]}`;
            const info = await readAccountInfo(body(json, asNumbers), fields, "USDC", ignore);
            const p = info.positions[0]!;
            expect(nearest(notional(p)!, mul(size.value, avg.value))).toBe(true);
            // A liquidation price of 0 or below is none given: no distance.
            if (liq.value[0] <= 0n) expect(liquidationDistance(p)).toBeUndefined();
            else {
              // Signed: how far the price may move against the position, LONG (avg − liq) / avg, SHORT (liq − avg) / avg.
              const against = direction === "LONG" ? add(avg.value, [-liq.value[0], liq.value[1]]) : add(liq.value, [-avg.value[0], avg.value[1]]);
              expect(nearest(liquidationDistance(p)!, div(against, abs(avg.value)))).toBe(true);
            }
            // (total − available) / total from the decimals as written; none at a total margin of 0 or less.
            if (total.value[0] <= 0n) expect(marginUsage(info)).toBeUndefined();
            else expect(nearest(marginUsage(info)!, div(add(total.value, [-available.value[0], available.value[1]]), total.value))).toBe(true);
            const sum = maintenanceMargin(info)!;
            const ratio = marginRatio(sum, info.totalMargin, info.exact?.totalMargin);
            if (info.totalMargin! > 0) expect(nearest(ratio!, div(mm.value, total.value))).toBe(true);
            // Never NaN (the alert rules have no words for it): 0 without maintenance margin, +Inf at total <= 0.
            expect(ratio).not.toBeNaN();
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`order sums and notionals from ${form}`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(decimalText, decimalText), { minLength: 1, maxLength: 6 }), async (rows) => {
          const json = `[${rows.map(([price, qty]) => `{"id":"x","price":"${price.text}","quantity":"${qty.text}"}`).join(",")}]`;
          const orders = await readOrders(body(json, asNumbers), fields, "orders_active", ignore);
          const quantity = new Aggregate();
          const notionalSum = new Aggregate();
          let wantQuantity: Rational = [0n, 1n];
          let wantNotional: Rational = [0n, 1n];
          orders.forEach((o, i) => {
            quantity.add(o.quantity, o.exact?.quantity);
            notionalSum.addProduct(o.price, o.quantity, o.exact?.price, o.exact?.quantity);
            const [price, qty] = rows[i]!;
            wantQuantity = add(wantQuantity, qty.value);
            wantNotional = add(wantNotional, mul(price.value, qty.value));
          });
          expect(nearest(quantity.sum!, wantQuantity)).toBe(true);
          expect(nearest(notionalSum.sum!, wantNotional)).toBe(true);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("an 18-digit size times 1.1 is the exact product rounded once, not a product of doubles", async () => {
    const json = `{"collateralBalance":"1","availableMargin":"1","totalInvested":"1","totalMargin":"1","totalUnrealizedPnl":"0","positions":[${position("123456789012345678", "1.1", "1", "1")}]}`;
    const p = (await readAccountInfo(body(json, false), fields, "USDC", ignore)).positions[0]!;
    expect(Number("123456789012345678") * 1.1).not.toBe(Number("135802467913580245.8"));
    expect(notional(p)).toBe(Number("135802467913580245.8"));
  });

  it("the checker itself tells a double product from the exact one", () => {
    const exact: Rational = [1358024679135802458n, 10n];
    expect(nearest(Number("135802467913580245.8"), exact)).toBe(true);
    expect(nearest(Number("123456789012345678") * 1.1, exact)).toBe(false);
  });
});
