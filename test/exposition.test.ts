// One scrape's exposition: the same text as rendering every family at once, cut at the series cap in
// collector order or in the order collectors give way, and an answer gzipped whole as one member.

import { describe, expect, it } from "vitest";
import { COLLECTORS } from "../src/collectors/index.js";
import { Groups } from "../src/scrape/group.js";
import { Answer, SharedBody } from "../src/metrics/answer.js";
import { capSeries, expose } from "../src/metrics/exposition.js";
import { renderText } from "./helpers/render-text.js";
import { scrapeFromFixtures } from "./helpers/fixtures.js";
import { pythonFirstMember } from "./helpers/gzip-clients.js";

const CASE = {
  account: "main",
  accountInfos: [["USDC", "account-detailed.json"]] as Array<[string, string]>,
  active: "orders-active.json",
  history: "orders-history.json",
  markets: "markets.json",
};

const familiesOf = (collectors: typeof COLLECTORS, scrape: Parameters<(typeof COLLECTORS)[number]["collect"]>[0]) =>
  collectors.flatMap((c) => c.collect(scrape)).filter((f) => f.samples.length > 0);

describe("expose", () => {
  it("renders the same text as renderText of every family, in collector order", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const out = expose(COLLECTORS, scrape, 1_000_000);
    expect(out.text).toBe(renderText(familiesOf(COLLECTORS, scrape)));
    expect(out.text).toMatch(/^trading_up\{/m);
    expect(out.series).toBe(familiesOf(COLLECTORS, scrape).reduce((n, f) => n + f.samples.length, 0));
    expect(out.dropped).toBe(0);
  });

  it("renders nothing as the empty text", () => {
    expect(expose([], { collectedAt: 0, accounts: [], markets: undefined, marketFamilies: false }, 10)).toEqual({
      text: "",
      series: 0,
      dropped: 0,
      duplicates: 0,
    });
  });

  it("cuts over the series cap from the collectors it was given", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const out = expose(COLLECTORS, scrape, 10);
    // The scrape's health is kept whole on top of the cap: the up/down alerts read it.
    const health = COLLECTORS.filter((c) => c.givesWay === "never").flatMap((c) => c.collect(scrape));
    const healthSeries = health.reduce((n, f) => n + f.samples.length, 0);
    expect(healthSeries).toBeGreaterThan(0);
    expect(out.series).toBe(10 + healthSeries);
    expect(out.text).toMatch(/^trading_up\{/m);
    expect(out.dropped).toBeGreaterThan(0);
  });

  it("under the cap sends every series; over it drops what cutting the whole exposition drops, for every cap", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const all = COLLECTORS.filter((c) => c.givesWay !== "never").flatMap((c) => c.collect(scrape).filter((f) => f.samples.length > 0));
    const total = all.reduce((n, f) => n + f.samples.length, 0);
    const health = renderText(COLLECTORS.filter((c) => c.givesWay === "never").flatMap((c) => c.collect(scrape).filter((f) => f.samples.length > 0)));
    const lines = (text: string) => text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    expect(lines(expose(COLLECTORS, scrape, total + 1000).text)).toEqual(lines(health + renderText(all)));
    // One map of rendered parts across every cap, as the exporter keeps it: a part cut by the cap is never served whole.
    const parts = new Map();
    for (const max of [total + 1000, 0, 1, 7, Math.floor(total / 2), total - 1, total]) {
      const out = expose(COLLECTORS, scrape, max, parts);
      const { families, dropped } = capSeries(all, max);
      expect(out.dropped, `cap ${max}`).toBe(dropped);
      expect(lines(out.text).length, `cap ${max}`).toBe(lines(health + renderText(families)).length);
    }
  });

  it("gives every capped collector a turn of its own to give way, from 1 up", () => {
    const turns = COLLECTORS.flatMap((c) => (c.givesWay === "never" ? [] : [c.givesWay])).sort((a, b) => a - b);
    expect(turns).toEqual(turns.map((_, i) => i + 1));
  });

  it("over the cap, takes series from a collector only once every collector of an earlier turn has none left, for every cap", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const capped = COLLECTORS.filter((c) => c.givesWay !== "never");
    const linesOf = (collectors: readonly (typeof COLLECTORS)[number][]) =>
      collectors.map((c) =>
        renderText(c.collect(scrape).filter((f) => f.samples.length > 0))
          .split("\n")
          .filter((l) => l !== "" && !l.startsWith("#")),
      );
    const whole = linesOf(capped);
    const total = whole.reduce((n, l) => n + l.length, 0);
    expect(whole.every((l) => l.length > 0)).toBe(true);
    const parts = new Map();
    for (let max = 0; max <= total + 1; max++) {
      const out = expose(COLLECTORS, scrape, max, parts);
      const sent = new Set(out.text.split("\n"));
      const kept = whole.map((l) => l.filter((line) => sent.has(line)).length);
      expect(out.dropped, `cap ${max}`).toBe(Math.max(0, total - max));
      expect(
        kept.reduce((a, b) => a + b, 0),
        `cap ${max}`,
      ).toBe(Math.min(total, max));
      // In turn: once a collector keeps anything, every one of a later turn keeps all.
      const order = capped.map((_, i) => i).sort((a, b) => (capped[a]!.givesWay as number) - (capped[b]!.givesWay as number));
      const first = order.findIndex((i) => kept[i]! > 0);
      if (first !== -1) for (const i of order.slice(first + 1)) expect(kept[i], `cap ${max}, ${i}`).toBe(whole[i]!.length);
    }
  });

  it("renders the market families once per market list read, and anew from another read", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const kept = new Map();
    const first = expose(COLLECTORS, scrape, 1_000_000, kept);
    const rendered = kept.get(COLLECTORS.find((c) => c.madeFrom !== undefined));
    expect(rendered?.madeFrom).toBe(scrape.markets);
    expect(expose(COLLECTORS, scrape, 1_000_000, kept).text).toBe(first.text);
    expect(kept.get(COLLECTORS.find((c) => c.madeFrom !== undefined))).toBe(rendered);
    // Another read of the list (a new object) with one market fewer: its text, not the kept one.
    const markets = { ...scrape.markets!, markets: scrape.markets!.markets!.slice(1) };
    const next = { ...scrape, markets };
    const out = expose(COLLECTORS, next, 1_000_000, kept);
    expect(out.text).toBe(renderText(familiesOf(COLLECTORS, next)));
    expect(out.text).not.toBe(first.text);
    // A view without the market families (a probe) gets none of them, whatever is kept.
    expect(expose(COLLECTORS, { ...next, marketFamilies: false }, 1_000_000, kept).text).not.toMatch(/^trading_market_/m);
  });
});

describe("Answer", () => {
  it("gzips the whole text as one member that a single-member decoder reads whole", async () => {
    const { scrape } = await scrapeFromFixtures(CASE);
    const answer = new Answer(new SharedBody(expose(COLLECTORS, scrape, 1_000_000).text), "trading_exporter_x 1\n");
    expect(answer.text().split("\n# HELP ").length).toBeGreaterThan(3);
    const decoded = pythonFirstMember(Buffer.concat(answer.gzip()));
    expect(decoded).toMatchObject({ leftOver: 0, complete: true });
    expect(decoded.text.toString("utf8")).toBe(answer.text());
    expect(answer.text()).toMatch(/\ntrading_exporter_x 1\n$/);
  });

  it("keeps a small body in memory of its own size, not in a slab of Node's shared buffer pool", () => {
    const body = new SharedBody("trading_x 1\n");
    expect(body.plain().byteLength).toBeLessThan(Buffer.poolSize / 2);
    expect(body.plain().buffer.byteLength).toBe(body.plain().byteLength);
    const { bytes } = body.deflated();
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    expect(new Answer(body).text()).toBe("trading_x 1\n");
  });

  it("keeps its gzip tail, its own metrics' deflate and the trailer, in memory of its own size: a kept answer holds no pool slab", () => {
    for (const own of ["", "trading_exporter_x 1\n"]) {
      const tail = new Answer(new SharedBody("trading_x 1\n"), own).gzip()[2]!;
      expect(tail.byteLength).toBeLessThan(Buffer.poolSize / 2);
      expect(tail.buffer.byteLength).toBe(tail.byteLength);
    }
  });
});

describe("Groups", () => {
  it("keeps groups apart and in first-seen order, skipping a key with an unknown value", () => {
    const groups = new Groups(() => ({ n: 0 }));
    const statuses = Array.from({ length: 20 }, (_, i) => `S${i}`);
    for (let round = 0; round < 3; round++) {
      for (const status of statuses) groups.get(["acct", "M1", status])!.n++;
    }
    groups.get(["acct", "M2", "S19"])!.n++;
    expect(groups.get(["acct", "M2", undefined])).toBeUndefined();
    // Values that would join alike stay apart.
    expect(groups.get(["a\u0000b", "c", "d"])).not.toBe(groups.get(["a", "b\u0000c", "d"]));
    const entries = [...groups.entries()];
    expect(entries.slice(0, 21).map((e) => e.labels.join("/"))).toEqual([...statuses.map((s) => `acct/M1/${s}`), "acct/M2/S19"]);
    expect(entries.slice(0, 21).map((e) => e.value.n)).toEqual([...statuses.map(() => 3), 1]);
  });
});
