// The reuse contract: a collector's text is reused while its inputs() are the same objects, so a
// collector reading anything it does not list would serve stale numbers. For every fixture case and
// every part of a scrape changed alone, the reused exposition must equal a full render.

import { describe, expect, it } from "vitest";
import type { AccountResult, ScrapeResult } from "../src/collect/result.js";
import type { Collector } from "../src/metrics/collector.js";
import { COLLECTORS, collectFamilies } from "../src/collectors/index.js";
import { Exposition } from "../src/metrics/exposition.js";
import { renderText } from "../src/metrics/text-render.js";
import { CASES } from "./helpers/fixture-cases.js";
import { scrapeFromFixtures } from "./helpers/fixtures.js";

const NO_CAP = Number.MAX_SAFE_INTEGER;

/** A deep copy with every number and bigint moved by one and every boolean kept: a changed venue answer. */
function perturb<T>(value: T): T {
  if (typeof value === "number") return (Number.isFinite(value) ? value + 1 : value) as T;
  if (typeof value === "bigint") return (value + 1n) as T;
  if (typeof value === "string") return `${value}-changed` as T;
  if (Array.isArray(value)) return value.map(perturb) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "collateralId" || k === "id" ? v : perturb(v)])) as T;
  }
  return value;
}

/** Blank lines separate families in the Prometheus client's joins and not between two parts; Prometheus ignores them. */
const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

const fullRender = (scrape: ScrapeResult, collectors: readonly Collector[] = COLLECTORS): string[] =>
  collectors === COLLECTORS ? lines(renderText(collectFamilies(scrape))) : lines(renderText(collectors.flatMap((c) => c.collect(scrape))));

function rendered(exposition: Exposition, scrape: ScrapeResult): string[] {
  const { fresh, reused } = exposition.render(scrape, NO_CAP);
  return lines(fresh + (reused?.text ?? ""));
}

/** Every part of a scrape, replaced alone: the other parts stay the very same objects. */
function variants(scrape: ScrapeResult): Array<[string, ScrapeResult]> {
  const out: Array<[string, ScrapeResult]> = [["collectedAt", { ...scrape, collectedAt: scrape.collectedAt + 60_000 }]];
  const withAccount = (i: number, account: AccountResult): ScrapeResult => ({
    ...scrape,
    accounts: scrape.accounts.map((a, j) => (j === i ? account : a)),
  });
  scrape.accounts.forEach((a, i) => {
    for (const key of Object.keys(a) as Array<keyof AccountResult>) {
      const part = a[key];
      if (Array.isArray(part)) {
        part.forEach((_, k) => {
          const list = part.map((x, m) => (m === k ? perturb(x) : x));
          out.push([`accounts[${i}].${key}[${k}]`, withAccount(i, { ...a, [key]: list })]);
        });
      } else if (part !== undefined) {
        out.push([`accounts[${i}].${key}`, withAccount(i, { ...a, [key]: perturb(part) })]);
      }
    }
  });
  const markets = scrape.markets;
  if (markets !== undefined) {
    for (const key of Object.keys(markets) as Array<keyof typeof markets>) {
      if (markets[key] === undefined) continue;
      out.push([`markets.${key}`, { ...scrape, markets: { ...markets, [key]: perturb(markets[key]) } }]);
    }
  }
  return out;
}

const SCRAPES: Array<[string, () => ScrapeResult]> = [
  ...Object.entries(CASES).map(([name, c]): [string, () => ScrapeResult] => [name, () => scrapeFromFixtures(c).scrape]),
  [
    "two accounts",
    () => {
      const a = scrapeFromFixtures(CASES.detailed!).scrape;
      const b = scrapeFromFixtures(CASES.odd!).scrape;
      return { ...a, accounts: [...a.accounts, ...b.accounts] };
    },
  ],
];

describe("the reused exposition equals a full render", () => {
  for (const [name, build] of SCRAPES) {
    it(`${name}: first scrape, and a second with each part changed alone`, () => {
      const first = build();
      const cases = variants(first);
      expect(cases.length).toBeGreaterThan(6);
      let changed = 0;
      for (const [part, second] of cases) {
        const exposition = new Exposition(COLLECTORS);
        expect(rendered(exposition, first), `${name}: first scrape`).toEqual(fullRender(first));
        const expected = fullRender(second);
        if (expected.join("\n") !== fullRender(first).join("\n")) changed++;
        expect(rendered(exposition, second), `${name}: ${part} changed`).toEqual(expected);
        // And back: the first scrape's objects again, after the change.
        expect(rendered(exposition, first), `${name}: ${part} changed back`).toEqual(fullRender(first));
      }
      // The changes reach the output, so a stale reuse would show.
      expect(changed).toBeGreaterThan(cases.length / 2);
    });
  }

  it("catches a collector that reads an input it does not list", () => {
    const first = scrapeFromFixtures(CASES.detailed!).scrape;
    const honest = COLLECTORS.find((c) => c.inputs(first) !== undefined)!;
    // Lists only the account names, so a changed balance would be served stale.
    const lying: Collector = { inputs: (s) => s.accounts.map((a) => a.account), collect: (s) => honest.collect(s) };
    const exposition = new Exposition([lying]);
    exposition.render(first, NO_CAP);
    const stale = variants(first).filter(([, second]) => {
      const { fresh, reused } = exposition.render(second, NO_CAP);
      const same = lines(fresh + (reused?.text ?? "")).join("\n") === fullRender(second, [lying]).join("\n");
      exposition.render(first, NO_CAP);
      return !same;
    });
    expect(stale.length).toBeGreaterThan(0);
  });
});
