// The exposition in parts: the same text as rendering every family at once, each part encoded once
// (pieces of one gzip member that decode to the same text), reused while its inputs are the same objects.

import { describe, expect, it } from "vitest";
import { COLLECTORS } from "../src/collectors/index.js";
import { markets } from "../src/collectors/markets.js";
import { scrapeHealth } from "../src/collectors/scrape-health.js";
import { Groups } from "../src/collectors/group.js";
import { Part, familiesToOpenMetrics } from "../src/metrics/body.js";
import { Exposition } from "../src/metrics/exposition.js";
import { type Deflated, gzipMember, joinPieces } from "../src/metrics/gzip-member.js";
import { capSeries } from "../src/metrics/series-cap.js";
import { renderText } from "../src/metrics/text-render.js";
import { scrapeFromFixtures } from "./helpers/fixtures.js";
import { pythonFirstMember } from "./helpers/gzip-clients.js";

/** What a client that reads only the first gzip member gets of a body sent as `piece`, as text. */
function firstMemberText(piece: Deflated): string {
  const decoded = pythonFirstMember(Buffer.concat(gzipMember([piece])));
  expect(decoded).toMatchObject({ leftOver: 0, complete: true });
  return decoded.text.toString("utf8");
}

const CASE = {
  account: "main",
  accountInfos: [["USDC", "account-detailed.json"]] as Array<[string, string]>,
  active: "orders-active.json",
  history: "orders-history.json",
  markets: "markets.json",
};

const reusedCollectors = COLLECTORS.filter((c) => c !== scrapeHealth);
const familiesOf = (collectors: typeof COLLECTORS, scrape: Parameters<(typeof COLLECTORS)[number]["collect"]>[0]) =>
  collectors.flatMap((c) => c.collect(scrape)).filter((f) => f.samples.length > 0);

describe("Exposition", () => {
  it("renders the same text as renderText, in a fresh and a reused part", () => {
    const { scrape } = scrapeFromFixtures(CASE);
    const out = new Exposition(COLLECTORS).render(scrape, 1_000_000);
    expect(out.fresh).toBe(renderText(familiesOf([scrapeHealth], scrape)));
    expect(out.reused?.text).toBe(renderText(familiesOf(reusedCollectors, scrape)));
    expect(out.dropped).toBe(0);
  });

  it("compresses its parts as one gzip member, text and OpenMetrics, that decodes to the same text", () => {
    const { scrape } = scrapeFromFixtures(CASE);
    const reused = new Exposition(COLLECTORS).render(scrape, 1_000_000).reused!;
    expect(reused.text.split("\n# HELP ").length).toBeGreaterThan(3);
    expect(firstMemberText(joinPieces(reused.pieces("text")))).toBe(reused.text);
    expect(reused.plain("text").toString()).toBe(reused.text);
    expect(firstMemberText(joinPieces(reused.pieces("openmetrics")))).toBe(familiesToOpenMetrics(reused.text));
    expect(reused.plain("openmetrics").toString()).toBe(familiesToOpenMetrics(reused.text));
  });

  it("compresses a part of gauges once for both formats, and a part with counters for each", () => {
    const gauges = Part.gzipped(Buffer.from("# HELP t_g h\n# TYPE t_g gauge\nt_g 1\n# HELP t_h h\n# TYPE t_h gauge\nt_h 2\n"));
    expect(gauges.sameInBoth).toBe(true);
    expect(gauges.deflated("openmetrics")).toBe(gauges.deflated("text"));
    const counters = Part.gzipped(Buffer.from("# HELP t_c_total h\n# TYPE t_c_total counter\nt_c_total 1\n"));
    expect(counters.sameInBoth).toBe(false);
    expect(firstMemberText(counters.deflated("openmetrics"))).toBe("# HELP t_c h\n# TYPE t_c counter\nt_c_total 1\n");
    const blank = new Part(Buffer.from("# TYPE t_g gauge\nt_g 1\n\n# TYPE t_h gauge\nt_h 2\n"));
    expect(blank.sameInBoth).toBe(false);
    expect(blank.plain("openmetrics").toString()).toBe("# TYPE t_g gauge\nt_g 1\n# TYPE t_h gauge\nt_h 2\n");
  });

  it("renders the market list once for every account's probe, not once per account", () => {
    const exposition = new Exposition(COLLECTORS);
    const { scrape } = scrapeFromFixtures(CASE);
    // The market list's own collector: the position margin reads the list too, but per account.
    let renders = 0;
    const counted = {
      ...markets,
      collect: (s: typeof scrape) => {
        renders++;
        return markets.collect(s);
      },
    };
    const spied = new Exposition(COLLECTORS.map((c) => (c === markets ? counted : c)));
    const probe = (name: string) => ({ ...scrape, accounts: scrape.accounts.map((a) => ({ ...a, account: name })) });
    const texts = ["a", "b", "c"].map((name) => spied.render(probe(name), 1_000_000).reused?.text ?? "");
    expect(renders).toBe(1);
    expect(texts.map((t) => t.replaceAll(/account="[abc]"/g, ""))).toEqual(
      ["a", "b", "c"].map((name) => (exposition.render(probe(name), 1_000_000).reused?.text ?? "").replaceAll(/account="[abc]"/g, "")),
    );
  });

  it("reuses the body while the inputs are the same objects, and re-renders only what changed", () => {
    const exposition = new Exposition(COLLECTORS);
    const { scrape } = scrapeFromFixtures(CASE);
    const first = exposition.render(scrape, 1_000_000).reused!;
    expect(exposition.render(scrape, 1_000_000).reused).toBe(first);
    // The account moved: a new AccountInfo object with another balance.
    const account = scrape.accounts[0]!;
    const info = { ...account.accountInfos[0]!, collateralBalance: 12345.5 };
    const moved = { ...scrape, accounts: [{ ...account, accountInfos: [info] }] };
    const second = exposition.render(moved, 1_000_000).reused!;
    expect(second).not.toBe(first);
    expect(second.text).toBe(renderText(familiesOf(reusedCollectors, moved)));
    expect(second.text).toContain('trading_account_collateral_balance{account="main",collateral_id="USDC"} 12345.5');
    expect(firstMemberText(joinPieces(second.pieces("text")))).toBe(second.text);
  });

  it("cuts over the series cap from the collectors it was given", () => {
    const { scrape } = scrapeFromFixtures(CASE);
    const out = new Exposition(COLLECTORS).render(scrape, 10);
    // The scrape's health is kept whole on top of the cap: the up/down alerts read it.
    const health = COLLECTORS.filter((c) => c.uncapped === true).flatMap((c) => c.collect(scrape));
    const healthSeries = health.reduce((n, f) => n + f.samples.length, 0);
    expect(healthSeries).toBeGreaterThan(0);
    expect(out.series).toBe(10 + healthSeries);
    expect(out.fresh).toMatch(/^trading_up\{/m);
    expect(out.dropped).toBeGreaterThan(0);
  });

  it("over the cap sends the series of cutting the whole exposition family by family, in collector order, for every cap", () => {
    const { scrape } = scrapeFromFixtures(CASE);
    const all = COLLECTORS.filter((c) => c.uncapped !== true).flatMap((c) => c.collect(scrape).filter((f) => f.samples.length > 0));
    const total = all.reduce((n, f) => n + f.samples.length, 0);
    const health = renderText(COLLECTORS.filter((c) => c.uncapped === true).flatMap((c) => c.collect(scrape).filter((f) => f.samples.length > 0)));
    const lines = (text: string) => text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    for (const max of [0, 1, 7, Math.floor(total / 2), total - 1]) {
      // A fresh exposition and one that rendered the whole scrape before: the cut must not depend on what is cached.
      const warm = new Exposition(COLLECTORS);
      warm.render(scrape, total + 1000);
      // And one whose last render was cut: what it left out is collected again, not lost.
      const cut = new Exposition(COLLECTORS);
      cut.render(scrape, 0);
      const whole = cut.render(scrape, total + 1000);
      expect(lines(whole.fresh + (whole.reused?.text ?? "")), `after a cut at ${max}`).toEqual(lines(health + renderText(all)));
      for (const exposition of [new Exposition(COLLECTORS), warm]) {
        const out = exposition.render(scrape, max);
        const { families, dropped } = capSeries(all, max);
        expect(out.dropped, `cap ${max}`).toBe(dropped);
        expect(lines(out.fresh + (out.reused?.text ?? "")), `cap ${max}`).toEqual(lines(health + renderText(families)));
      }
    }
  });
});

describe("Groups", () => {
  it("keeps groups apart and in first-seen order past a bucket's list, with a reused key array", () => {
    const groups = new Groups(() => ({ n: 0 }));
    const key: Array<string | undefined> = ["acct", "M1", ""];
    const statuses = Array.from({ length: 20 }, (_, i) => `S${i}`);
    for (let round = 0; round < 3; round++) {
      for (const status of statuses) {
        key[2] = status;
        groups.get(key)!.n++;
      }
    }
    key[1] = "M2";
    groups.get(key)!.n++;
    key[2] = undefined;
    expect(groups.get(key)).toBeUndefined();
    const entries = [...groups.entries()];
    expect(entries.map((e) => e.labels.join("/"))).toEqual([...statuses.map((s) => `acct/M1/${s}`), "acct/M2/S19"]);
    expect(entries.map((e) => e.value.n)).toEqual([...statuses.map(() => 3), 1]);
  });
});
