// Headless Chromium as the judge of the status page: its numbers are /metrics' numbers, it fits a phone,
// and a strict Content-Security-Policy leaves it styled.

import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS } from "../src/config/threshold-table.js";
import { grade } from "../src/http/pages/status-data.js";
import { percent } from "../src/http/pages/status-page.js";
import { formatValue } from "../src/metrics/text-render.js";
import { webGuards } from "../src/http/toolkit/guards.js";
import { deskAccountKey, deskAccountName } from "../tools/simulator/desk.js";
import { chromiumMissing, runChromium } from "./helpers/chromium.js";
import { startBrowser } from "./helpers/chromium-page.js";
import { parseExposition, type ParsedSample } from "./helpers/exposition.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const unescapeHtml = (text: string) =>
  text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");

interface Shown {
  attrs: Record<string, string>;
  /** The element's text up to its closing </td>, </span> or </p>, tags stripped. */
  text: string;
  className: string;
}

/** Every element of the page that carries a metric's value (data-metric), with its attributes and text. */
function shownValues(dom: string): Shown[] {
  return [...dom.matchAll(/<(td|span|p|dd)\s([^>]*data-metric="[^"]*"[^>]*)>([\s\S]*?)<\/\1>/g)].flatMap((m) => {
    const attrs = Object.fromEntries([...m[2]!.matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, unescapeHtml(a[2]!)]));
    const shown = {
      attrs,
      className: attrs.class ?? "",
      text: unescapeHtml(m[3]!.replace(/<[^>]+>/g, " "))
        .replace(/\s+/g, " ")
        .trim(),
    };
    // A value shown inside another's element (margin in use beside the ratio, the prices beside a distance).
    return [shown, ...shownValues(m[3]!)];
  });
}

const LABEL_OF: Record<string, string> = {
  "data-account": "account",
  "data-collateral": "collateral_id",
  "data-market": "market_id",
  "data-direction": "direction",
  "data-endpoint": "endpoint",
};

/** The exposition's samples of the shown element's metric whose labels are the element's. */
function matching(samples: ParsedSample[], shown: Shown): ParsedSample[] {
  const labels = Object.entries(shown.attrs).flatMap(([k, v]) => (LABEL_OF[k] === undefined ? [] : [[LABEL_OF[k]!, v] as const]));
  return samples.filter((s) => s.name === shown.attrs["data-metric"] && labels.every(([k, v]) => (s.labels[k] ?? "") === v));
}

const title = chromiumMissing
  ? "status page in headless Chromium: SKIPPED, /usr/bin/chromium is missing (apt-get install chromium)"
  : "status page in headless Chromium";

describe.skipIf(chromiumMissing)(title, () => {
  it("shows the numbers of /metrics for the liquidation scenario and a failing endpoint, and fits a phone", async () => {
    stack = await startStack();
    stack.venue.setScenario("liquidation");
    stack.venue.setFaults([{ endpoint: "orders_history", kind: "status", status: 503 }]);
    const samples = parseExposition(await stack.scrape());
    const url = new URL("/", stack.server.url).href;
    const dom = (await runChromium(url, ["--dump-dom"])).stdout;
    const shown = shownValues(dom);

    // Every value shown is the exposition's, as Prometheus text writes it.
    const byMetric = (name: string) => shown.filter((s) => s.attrs["data-metric"] === name);
    for (const s of shown) {
      if (s.attrs["data-metric"] === "trading_position_liquidation_distance_ratio") continue; // the nearest of several: below
      const found = matching(samples, s);
      expect(found.length, JSON.stringify(s.attrs)).toBe(1);
      expect(s.attrs["data-value"], JSON.stringify(s.attrs)).toBe(formatValue(found[0]!.value));
    }
    // trading_up for the account, and the endpoint that fails shows as failing with its reason.
    expect(byMetric("trading_up").map((s) => [s.attrs["data-account"], s.attrs["data-value"], s.text])).toEqual([["sim", "0", "down"]]);
    const failing = byMetric("trading_scrape_success").filter((s) => s.attrs["data-value"] === "0");
    expect(failing.map((s) => s.attrs["data-endpoint"])).toEqual(["orders_history"]);
    expect(dom).toMatch(/orders_history<\/th><td[^>]*>.*failing.*<\/td><td><code>http_5xx<\/code>/);
    expect(byMetric("trading_scrape_success").length).toBe(samples.filter((s) => s.name === "trading_scrape_success").length);
    // The collection's start as /metrics has it: a down account's is a failed attempt, not data of that age.
    expect(byMetric("trading_collection_timestamp_seconds").map((s) => s.text)).toEqual([
      expect.stringMatching(/^Last collection failed \(orders_history\), started \d\d:\d\d:\d\d UTC, \d+ s ago$/),
    ]);

    // Every collateral that answered shows its four amounts, each checked above against /metrics.
    for (const family of ["collateral_balance", "available_margin", "total_margin", "unrealized_pnl"]) {
      expect(byMetric(`trading_account_${family}`).length, family).toBe(samples.filter((x) => x.name === `trading_account_${family}`).length);
      expect(byMetric(`trading_account_${family}`).length, family).toBeGreaterThan(0);
    }

    // Margin ratio: a percentage, the threshold it is graded by and the alerts' state, per collateral.
    const ratios = byMetric("trading_account_margin_ratio");
    expect(ratios.map((s) => s.attrs["data-collateral"]).sort()).toEqual(
      samples
        .filter((s) => s.name === "trading_account_margin_ratio")
        .map((s) => s.labels.collateral_id)
        .sort(),
    );
    for (const s of ratios) {
      const value = matching(samples, s)[0]!.value;
      const state = grade("margin_ratio", value, DEFAULT_THRESHOLDS);
      const words = value === Infinity ? "no margin left" : `${state === "ok" ? "warning" : state} above`;
      expect(s.text.startsWith(`${percent(value)} — ${words}`), s.text).toBe(true);
      expect(s.text, "its badge, then margin in use beside it, what past 100 % means, and the trend alert's horizon").toMatch(
        new RegExp(
          ` ${state}( margin ratio; (\\S+) % of the margin in use( over 100 %: more than the whole total margin is bound, so the available margin is negative)?)? a rising trend warns 1 h before liquidation$`,
        ),
      );
      expect(s.className).toBe(state);
    }
    expect(
      ratios.some((s) => s.className === "critical"),
      "the liquidation scenario puts a margin ratio over 0.9",
    ).toBe(true);

    // Nearest liquidation: the smallest distance of the account and collateral, and its market.
    // Margin in use for every collateral that has it, in both shapes (checked against /metrics above).
    const usage = byMetric("trading_account_margin_usage_ratio");
    expect(usage.length).toBe(samples.filter((s) => s.name === "trading_account_margin_usage_ratio").length);
    expect(usage.length).toBeGreaterThan(0);
    for (const s of usage) expect(s.text).toBe(percent(Number(s.attrs["data-value"])));

    const nearest = byMetric("trading_position_liquidation_distance_ratio");
    expect(nearest.length).toBeGreaterThan(0);
    for (const s of nearest) {
      const distances = samples.filter(
        (x) =>
          x.name === "trading_position_liquidation_distance_ratio" &&
          x.labels.account === s.attrs["data-account"] &&
          x.labels.collateral_id === s.attrs["data-collateral"],
      );
      const min = distances.reduce((a, b) => (b.value < a.value ? b : a));
      expect(s.attrs["data-value"]).toBe(formatValue(min.value));
      expect(s.attrs["data-market"]).toBe(min.labels.market_id);
      expect(s.text).toContain(percent(min.value));
      expect(s.text).toContain(`${min.labels.market_id} ${min.labels.direction}`);
      expect(s.className).toBe(grade("liquidation_distance", min.value, DEFAULT_THRESHOLDS));
      expect(s.text).toContain(min.value < 0 ? "liquidation price is beyond the entry" : "below");
      // The two prices the distance is measured between, as /metrics writes them.
      const price = (name: string) =>
        formatValue(
          samples.find((x) => x.name === name && ["account", "collateral_id", "market_id", "direction"].every((l) => x.labels[l] === min.labels[l]))!.value,
        );
      expect(s.text.replace(/ ,/g, ",")).toContain(
        `${min.labels.market_id} ${min.labels.direction}, from entry ${price("trading_position_avg_execution_price")} to liquidation ${price("trading_position_liquidation_price")}`,
      );
    }

    // The page read the collection /metrics served: a page view calls the venue for nothing.
    const before = stack.venue.stats().requests;
    await runChromium(url, ["--dump-dom"]);
    expect(stack.venue.stats().requests).toEqual(before);

    const folder = mkdtempSync(join(tmpdir(), "status-page-"));
    const png = join(folder, "status.png");
    await runChromium(url, [`--screenshot=${png}`, "--window-size=412,915"]);
    expect(statSync(png).size).toBeGreaterThan(10_000);
    console.log(`status page screenshot (phone, 412x915): ${png}`);
  }, 120_000);

  it("with Content-Security-Policy default-src 'self' loads its stylesheet from its own origin and breaks no rule", async () => {
    const requested: string[] = [];
    const record: express.RequestHandler = (req, _res, next) => {
      requested.push(req.path);
      next();
    };
    stack = await startStack({
      guards: [...webGuards({ tls: undefined, basicAuthUsers: {}, headers: { "Content-Security-Policy": "default-src 'self'" } }), record],
    });
    await stack.scrape();
    const res = await stack.get("/");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'self'");
    const page = await res.text();
    expect(page).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    const sheets = [...page.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
    expect(sheets).toEqual(["status.css"]);
    const css = await stack.get(`/${sheets[0]!}`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(css.headers.get("cache-control")).toMatch(/max-age=\d+/);
    await css.text();

    requested.length = 0;
    const run = await runChromium(new URL("/", stack.server.url).href, ["--enable-logging=stderr", "--v=0", "--dump-dom"]);
    // Chromium logs each blocked resource or inline part as "Refused to ... Content Security Policy".
    expect(run.stderr).not.toMatch(/Content Security Policy|Refused to/);
    expect(requested).toContain("/status.css");
    expect(run.stdout).toContain('class="account"');
  }, 120_000);
  it("stays readable with 50 accounts of their own thresholds at 390 px and 1,400 px, under the default Content-Security-Policy", async () => {
    const ACCOUNTS = 50;
    // A third of the desk grades critical at its own thresholds, a third warning, the rest at the defaults.
    const own = (i: number) =>
      i % 3 === 0
        ? { margin_ratio_warning: 0.01, margin_ratio_critical: 0.02 }
        : i % 3 === 1
          ? { margin_ratio_warning: 0.01, margin_ratio_critical: 0.99 }
          : undefined;
    stack = await startStack({
      venue: { accounts: ACCOUNTS },
      file: (url) => ({
        venue: { base_url: url },
        accounts: Array.from({ length: ACCOUNTS }, (_, i) => ({
          name: deskAccountName(i, ACCOUNTS),
          collateral_ids: ["USDC", "USDT"],
          auth: { type: "api_key", key: deskAccountKey(SIM_KEY, i, ACCOUNTS) },
          ...(own(i) === undefined ? {} : { thresholds: own(i) }),
        })),
      }),
      logLevel: "warn",
    });
    await stack.scrape();
    const browser = await startBrowser();
    try {
      const folder = mkdtempSync(join(tmpdir(), "status-desk-"));
      for (const width of [390, 1400]) {
        const page = await browser.open(new URL("/", stack.server.url).href, width, 900);
        const seen = await page.evaluate<{
          sections: number;
          overflowing: string[];
          page: number;
          window: number;
          smallest: number;
          badges: string[];
          wrapped: string[];
          summary: string;
        }>(`(() => {
          const lines = (e) => { const r = document.createRange(); r.selectNodeContents(e); return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; };
          const inside = (inner, outer) => { const a = inner.getBoundingClientRect(), b = outer.getBoundingClientRect(); return a.left >= b.left - 0.5 && a.right <= b.right + 0.5; };
          const cards = [...document.querySelectorAll("section.account")];
          const accounts = cards.filter((c) => c.id.startsWith("account-"));
          const overflowing = cards.filter((c) => [...c.querySelectorAll("table, td, th, dd, dt, a, strong")].some((e) => !inside(e, c))).map((c) => c.id);
          const sizes = [...document.querySelectorAll("td, th, dd, dt, .limit, .badge")].map((e) => parseFloat(getComputedStyle(e).fontSize));
          return {
            sections: accounts.length, overflowing, page: document.documentElement.scrollWidth, window: window.innerWidth, smallest: Math.min(...sizes),
            badges: [...document.querySelectorAll("a.badge")].map((a) => a.getAttribute("href")),
            wrapped: [...document.querySelectorAll(".badge")].filter((b) => lines(b) > 1).map((b) => b.textContent),
            summary: document.querySelector(".summary").textContent,
          };
        })()`);
        const png = join(folder, `status-50-accounts-${width}.png`);
        writeFileSync(png, await page.screenshot());
        console.log(`status page, ${ACCOUNTS} accounts at ${width} px: ${seen.summary.trim()}; smallest text ${seen.smallest} px; ${png}`);
        expect(seen.sections).toBe(ACCOUNTS);
        expect(seen.overflowing, "elements outside their card").toEqual([]);
        expect(seen.page, "no sideways scrolling").toBeLessThanOrEqual(seen.window);
        expect(seen.smallest, "no text below 11 px").toBeGreaterThanOrEqual(11);
        expect(seen.wrapped, "badges on two lines").toEqual([]);
        expect(seen.badges.length).toBeGreaterThan(ACCOUNTS / 3);
        expect(seen.badges.every((href) => /^runbooks\/Trading\w+$/.test(href ?? ""))).toBe(true);
        expect(seen.summary).toMatch(/critical/);
        expect(seen.summary).toMatch(/warning/);
        expect(await page.violations()).toEqual([]);
      }
    } finally {
      await browser.close();
    }
  }, 180_000);

  it("shows every runbook page whole at 390 px: no sideways scroll, the whole title, under the default Content-Security-Policy", async () => {
    stack = await startStack({ logLevel: "warn" });
    const index = await (await fetch(new URL("/runbooks/", stack.server.url))).text();
    const names = [...index.matchAll(/href="(Trading\w+)"/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(15);
    const browser = await startBrowser();
    try {
      const folder = mkdtempSync(join(tmpdir(), "runbooks-phone-"));
      const problems: string[] = [];
      for (const name of names) {
        const page = await browser.open(new URL(`/runbooks/${name}`, stack.server.url).href, 390, 900);
        const seen = await page.evaluate<{ page: number; window: number; title: string; titleFits: boolean }>(`(() => {
          const h1 = document.querySelector("h1");
          const box = h1.getBoundingClientRect();
          return { page: document.documentElement.scrollWidth, window: window.innerWidth, title: h1.textContent, sw: h1.scrollWidth, cw: h1.clientWidth, right: box.right, titleFits: h1.scrollWidth <= h1.clientWidth && box.right <= window.innerWidth };
        })()`);
        // A page wider than the phone makes the window wider (the browser zooms out): both are held to 390.
        if (seen.page > 390 || seen.window > 390) problems.push(`${name}: the page is ${seen.page} px wide in a ${seen.window} px window`);
        if (seen.title !== name || !seen.titleFits) problems.push(`${name}: the title "${seen.title}" does not show whole (${JSON.stringify(seen)})`);
        if (name === "TradingPositionLeverageAboveAllowed") writeFileSync(join(folder, `${name}-390.png`), await page.screenshot());
        expect(await page.violations()).toEqual([]);
      }
      console.log(`runbook pages at 390 px: ${names.length} checked; screenshot of the longest title in ${folder}`);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
