// The status page without a browser: escaping by construction, the alert thresholds, and a page that reads
// the latest collection and never makes one.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_THRESHOLDS } from "../src/config/threshold-table.js";
import { type CollateralStatus, grade, type StatusData } from "../src/http/pages/status-data.js";
import { duration, html, percent, statusPage } from "../src/http/pages/status-page.js";
import { startStack, type Stack } from "./helpers/stack.js";
import { configFromObject } from "./helpers/config-files.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";

describe("html``", () => {
  it("escapes every interpolated value, in text and in attributes", () => {
    const hostile = `"><script>alert('x')</script>&`;
    expect(html`<a href="${hostile}">${hostile}</a>`.text).toBe(
      '<a href="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</a>',
    );
  });

  it("keeps nested html as it is, joins lists, and writes nothing for absent values", () => {
    const items = ["<b>", "c&d"].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>${undefined}${null}${false}${0}`.text).toBe("<ul><li>&lt;b&gt;</li><li>c&amp;d</li></ul>0");
  });
});

describe("the status page's grades", () => {
  const D = DEFAULT_THRESHOLDS;
  const desk = { ...D, margin_ratio_warning: 0.4, margin_ratio_critical: 0.5, liquidation_distance_warning: 0.2, liquidation_distance_critical: 0.1 };

  it("grade a liquidation distance as the two tiers fire: strictly below each threshold, a negative one critical", () => {
    expect(
      [-0.05, 0, 0.04, D.liquidation_distance_critical, 0.07, D.liquidation_distance_warning, 0.3].map((d) => grade("liquidation_distance", d, D)),
    ).toEqual(["critical", "critical", "critical", "warning", "warning", "ok", "ok"]);
    expect([0.09, 0.1, 0.15, 0.2].map((d) => grade("liquidation_distance", d, desk))).toEqual(["critical", "warning", "warning", "ok"]);
  });

  it("grade a margin ratio as the alerts compare: strictly above each of the account's thresholds, +Inf critical", () => {
    expect([0, D.margin_ratio_warning, 0.85, D.margin_ratio_critical, 0.95, Number.POSITIVE_INFINITY].map((r) => grade("margin_ratio", r, D))).toEqual([
      "ok",
      "ok",
      "warning",
      "warning",
      "critical",
      "critical",
    ]);
    expect([0.4, 0.45, 0.5, 0.6].map((r) => grade("margin_ratio", r, desk))).toEqual(["ok", "warning", "warning", "critical"]);
  });
});

describe("the page's words for numbers", () => {
  it.each([
    [0, "0 s"],
    [12.9, "12 s"],
    [60, "1 min"],
    [250, "4 min 10 s"],
    [7_500, "2 h 5 min"],
    [273_600, "3 d 4 h"],
  ])("duration(%d) is %j", (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });

  it("shows a ratio as a percentage with one decimal, +Inf as infinity", () => {
    expect([0.8, 0.91234, 1, -0.014, Number.POSITIVE_INFINITY].map(percent)).toEqual(["80.0 %", "91.2 %", "100.0 %", "−1.4 %", "∞"]);
  });
});

describe("statusPage", () => {
  it("escapes an account's and a market's names wherever they appear", () => {
    const name = `<img src=x onerror="alert(1)">`;
    const data: StatusData = {
      accounts: [
        {
          name,
          thresholds: DEFAULT_THRESHOLDS,
          up: 1,
          collectedAtSeconds: 1_700_000_000,
          collaterals: [
            {
              collateralId: name,
              answered: true,
              toOne: { ratio: undefined, usage: undefined },
              shape: "detailed",
              positions: 1,
              money: [1, 2, 3, 4],
              marginRatio: 0.5,
              marginUsage: 0.6,
              noMarginLeft: false,
              marginState: "ok",
              nearest: { marketId: name, direction: "LONG", distance: 0.2, state: "ok", entry: 100, liquidation: 80 },
              next: [{ marketId: name, direction: "SHORT", distance: 0.3, state: "ok", entry: 100, liquidation: 130 }],
              notShown: 0,
              unpriced: 0,
            },
          ],
          endpoints: [{ endpoint: "account_info", success: 1, lastFailure: undefined }],
        },
      ],
      markets: undefined,
    };
    const page = statusPage({ data, collected: true, version: "1.0.0", uptimeSeconds: 5, telemetryPath: "/metrics", now: 1_700_000_005_000 });
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(page).toContain('href="probe?target=%3Cimg%20src%3Dx%20onerror%3D%22alert(1)%22%3E&amp;debug=true"');
  });
});

describe("GET / on a running exporter", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });
  const requests = () => Object.values(stack.venue.stats().requests).reduce((a, b) => a + b, 0);

  it("before any scrape says there is no collection yet, and calls the venue for nothing", async () => {
    const before = requests();
    const res = await stack.get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const page = await res.text();
    expect(page).toContain("No collection yet.");
    expect(page).toContain('<meta http-equiv="refresh" content="15">');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(requests()).toBe(before);
  });

  it("gives the time to liquidation at the trend of the collections it served, a minute apart, for a drifting ratio", async () => {
    const start = performance.now();
    let offset = 0;
    // Monotonic time moves a minute between scrapes, never during one; the estimate is rounded, 1,799.99 s reads 30 min.
    const clock = vi.spyOn(performance, "now").mockImplementation(() => start + offset);
    stack.venue.setScenario("drift");
    try {
      const pageAt = async (minutes: number) => {
        for (let m = 0; m < minutes; m++) {
          await stack.scrape();
          stack.venue.tick(2);
          offset += 60_000;
        }
        return (await (await stack.get("/")).text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      };
      expect(await pageAt(5)).not.toContain("minutes' trend");
      // 1 point a minute from 30 %: 70 % at minute 40, 30 minutes from liquidation, inside the default hour.
      expect(await pageAt(36)).toContain("at the last 30 minutes' trend, liquidation in about 30 min warning (warns within 1 h)");
    } finally {
      clock.mockRestore();
      stack.venue.setScenario("normal");
    }
  });

  it("shows the endpoint's last failure after it recovered, with when it was seen", async () => {
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "malformed_json", times: 1 }]);
    await stack.scrape();
    await stack.scrape();
    const before = requests();
    const page = await (await stack.get("/")).text();
    expect(page).not.toContain("No collection yet.");
    expect(page).toMatch(
      /orders_active<\/th><td [^>]*data-value="1"><span class="badge up">ok<\/span><\/td><td><code>invalid_json<\/code> <time datetime="[^"]+"/,
    );
    expect(requests()).toBe(before);
  });

  it("names a failure's reason with the venue's HTTP status, and says why a collateral has no figures", async () => {
    stack.venue.setFaults([{ endpoint: "account_info", kind: "status", status: 401 }]);
    await stack.scrape();
    stack.venue.setFaults([]);
    const text = (await (await stack.get("/")).text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    expect(text).toMatch(/account_info failing auth — HTTP 401 \d\d:\d\d:\d\d UTC/);
    expect(text).toContain("USDC not reported: account_info failed (auth — HTTP 401) not reported: account_info failed (auth — HTTP 401)");
    expect(text).not.toContain("no data");
  });

  it("serves its stylesheet as CSS that caches", async () => {
    const res = await stack.get("/status.css");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await res.text()).toContain("@media (max-width: 480px)");
  });
});

describe("a desk of several accounts", () => {
  const account = (name: string, up: number | undefined, ratio: number | undefined, thresholds = DEFAULT_THRESHOLDS): StatusData["accounts"][number] => ({
    name,
    thresholds,
    up,
    collectedAtSeconds: up === undefined ? undefined : 1_700_000_000,
    collaterals: [
      {
        collateralId: "USDC",
        answered: up !== undefined,
        toOne: { ratio: undefined as number | undefined, usage: undefined as number | undefined },
        shape: up === undefined ? undefined : "detailed",
        positions: 1,
        money: [1000, 400, 1200.5, 200.5],
        marginRatio: ratio,
        marginUsage: undefined as number | undefined,
        noMarginLeft: false,
        marginState: ratio === undefined ? undefined : grade("margin_ratio", ratio, thresholds),
        nearest: undefined as CollateralStatus["nearest"],
        next: [],
        notShown: 0,
        unpriced: 0,
      },
    ],
    endpoints: [],
  });

  it("comes worst first (critical, down, warning, not collected, ok), in configured order otherwise, under a count of each", () => {
    const accounts = [
      account("a-ok", 1, 0.1),
      account("b-warn", 1, 0.85),
      account("c-new", undefined, undefined),
      account("d-crit", 1, 0.95),
      account("e-down", 0, 0.2),
      account("f-ok", 1, 0.2),
    ];
    const page = statusPage({
      data: { accounts, markets: undefined },
      collected: true,
      version: "1",
      uptimeSeconds: 1,
      telemetryPath: "/metrics",
      now: 1_700_000_001_000,
    });
    expect([...page.matchAll(/<section class="account" id="account-([^"]+)"/g)].map((m) => m[1])).toEqual([
      "d-crit",
      "e-down",
      "b-warn",
      "c-new",
      "a-ok",
      "f-ok",
    ]);
    expect(page.match(/<p class="summary">.*?<\/p>/)?.[0].replace(/<[^>]+>/g, "")).toBe("6 accounts: 1 critical 1 down 1 warning 1 not collected 2 ok");
  });

  const section = (page: string, name: string) =>
    page.slice(page.indexOf(`id="account-${name}"`), page.indexOf("</section>", page.indexOf(`id="account-${name}"`)));
  const pageOf = (accounts: StatusData["accounts"]) =>
    statusPage({ data: { accounts, markets: undefined }, collected: true, version: "1", uptimeSeconds: 1, telemetryPath: "/metrics", now: 1_700_000_001_000 });

  it("says no endpoint was read yet instead of an empty endpoint table", () => {
    const text = section(pageOf([account("c-new", undefined, undefined)]), "c-new");
    expect(text).not.toContain('<table class="endpoints">');
    expect(text).toContain("No endpoint read yet.");
  });

  it("calls a down account's last collection a failed one, naming the endpoints, not data of its age", () => {
    const down = {
      ...account("e-down", 0, 0.2),
      endpoints: [
        { endpoint: "account_info", success: 1, lastFailure: undefined },
        { endpoint: "orders_history", success: 0, lastFailure: undefined },
      ],
    };
    const text = section(pageOf([down, account("a-ok", 1, 0.1)]), "e-down").replace(/<[^>]+>/g, "");
    expect(text).not.toContain("Data collected");
    expect(text).toContain("Last collection failed (orders_history), started 22:13:20 UTC, 1 s ago");
    expect(section(pageOf([account("a-ok", 1, 0.1)]), "a-ok").replace(/<[^>]+>/g, "")).toContain("Data collected 22:13:20 UTC, 1 s ago");
  });
  const text = (page: string, name: string) =>
    section(page, name)
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .replace(/ ,/g, ",");

  it("grades each account by its own thresholds and states them beside the figure, its badge linking to the alert's runbook", () => {
    const desk = { ...DEFAULT_THRESHOLDS, margin_ratio_warning: 0.4, margin_ratio_critical: 0.5 };
    const page = pageOf([account("a", 1, 0.62, desk), account("b", 1, 0.62), account("c", 1, 0.85)]);
    expect(text(page, "a")).toContain("62.0 % — critical above 50 % critical");
    expect(section(page, "a")).toMatch(
      /<td class="critical" data-metric="trading_account_margin_ratio"[^>]*>.*<a class="badge critical" href="runbooks\/TradingMarginRatioCritical"/,
    );
    expect(text(page, "b")).toContain("62.0 % — warning above 80 % ok");
    expect(section(page, "b")).toMatch(/<td class="ok" data-metric="trading_account_margin_ratio"/);
    expect(section(page, "b")).not.toContain('class="badge critical"');
    expect(text(page, "c")).toContain("85.0 % — warning above 80 %, critical above 90 % warning");
    expect(section(page, "c")).toContain('<a class="badge warning" href="runbooks/TradingMarginRatioHigh"');
  });

  it("words a negative liquidation distance as beyond the entry, critical, and gives a positive one its threshold", () => {
    const long = account("long", 1, 0.1);
    long.collaterals[0]!.nearest = {
      marketId: "BTC-USD",
      direction: "LONG",
      distance: -0.05,
      state: grade("liquidation_distance", -0.05, DEFAULT_THRESHOLDS),
      entry: 100,
      liquidation: 105,
    };
    const short = account("short", 1, 0.1);
    short.collaterals[0]!.nearest = {
      marketId: "ETH-USD",
      direction: "SHORT",
      distance: 0.05,
      state: grade("liquidation_distance", 0.05, DEFAULT_THRESHOLDS),
      entry: 200,
      liquidation: 210,
    };
    const page = pageOf([long, short]);
    expect(text(page, "long")).toContain(
      "−5.0 % — liquidation price is beyond the entry: the position lives on unrealized gains critical BTC-USD LONG, from entry 100 to liquidation 105",
    );
    expect(section(page, "long")).toContain('<a class="badge critical" href="runbooks/TradingPositionNearLiquidation"');
    expect(text(page, "short")).toContain("5.0 % — warning below 10 %, critical below 5 % warning ETH-USD SHORT, from entry 200 to liquidation 210");
    expect(section(page, "short")).toContain('<a class="badge warning" href="runbooks/TradingPositionApproachingLiquidation"');
  });

  it("shows each collateral's balance, available margin, total margin and unrealized PnL grouped and rounded, the exact value a hover away", () => {
    const page = pageOf([account("a", 1, 0.1)]);
    expect(text(page, "a")).toContain("Balance 1,000.00 USDC Available margin 400 USDC Total margin 1,200.50 USDC Unrealized PnL 200.5 USDC");
    expect(section(page, "a")).toContain('<span title="1200.5 USDC">1,200.50</span>');
    expect(section(page, "a")).toContain('data-metric="trading_account_unrealized_pnl" data-account="a" data-collateral="USDC" data-value="200.5"');
  });

  it("lists the nearest positions with their distances, nearest first, says how many more and where, and counts every open one", () => {
    const a = account("many", 1, 0.5);
    const at = (marketId: string, distance: number) => ({
      marketId,
      direction: "LONG",
      distance,
      state: grade("liquidation_distance", distance, DEFAULT_THRESHOLDS),
      entry: 100,
      liquidation: 90,
    });
    a.collaterals[0] = { ...a.collaterals[0]!, positions: 6, nearest: at("BTC-USD", 0.08), next: [at("AVAX-USD", 0.43), at("ETH-USD", 0.5)], notShown: 3 };
    const page = pageOf([a]);
    expect(text(page, "many")).toContain(
      "BTC-USD LONG, from entry 100 to liquidation 90 AVAX-USD LONG 43.0 % to liquidation ETH-USD LONG 50.0 % to liquidation",
    );
    expect(text(page, "many")).toContain("3 more with a liquidation price: the debug probe and the Trading account dashboard list them 6 open positions");
    expect(section(page, "many")).toContain('<a href="probe?target=many&amp;debug=true">the debug probe</a>');
  });

  it("states the account's own horizons the trend alerts warn within, linking their runbooks", () => {
    const own = { ...DEFAULT_THRESHOLDS, margin_ratio_horizon_seconds: 7200, margin_usage_horizon_seconds: 1800 };
    const ratio = account("ratio", 1, 0.5, own);
    const usage = account("usage", 1, undefined, own);
    usage.collaterals[0] = { ...usage.collaterals[0]!, shape: "summary", positions: 2, marginUsage: 0.3, marginState: "ok" };
    const page = pageOf([ratio, usage]);
    expect(text(page, "ratio")).toContain("a rising trend warns 2 h before liquidation");
    expect(section(page, "ratio")).toContain('<a href="runbooks/TradingMarginRatioRising">2 h before liquidation</a>');
    expect(text(page, "usage")).toContain("a rising trend warns 30 min before no margin left");
    expect(section(page, "usage")).toContain('<a href="runbooks/TradingMarginUsageRising">');
  });

  it("gives the time to 100 % at the last 30 minutes' trend, a warning within the account's horizon that the account's count shows", () => {
    const own = { ...DEFAULT_THRESHOLDS, margin_ratio_horizon_seconds: 3600, margin_usage_horizon_seconds: 1800 };
    const near = account("near", 1, 0.7, own);
    near.collaterals[0] = { ...near.collaterals[0]!, toOne: { ratio: 1500, usage: 100 } };
    const far = account("far", 1, 0.3, own);
    far.collaterals[0] = { ...far.collaterals[0]!, toOne: { ratio: 7200, usage: undefined } };
    const usage = account("usage", 1, undefined, own);
    usage.collaterals[0] = {
      ...usage.collaterals[0]!,
      shape: "summary",
      positions: 2,
      marginUsage: 0.6,
      marginState: "ok",
      toOne: { ratio: undefined, usage: 1200 },
    };
    const page = pageOf([far, near, usage]);
    expect(text(page, "near")).toContain("at the last 30 minutes' trend, liquidation in about 25 min warning (warns within 1 h)");
    expect(section(page, "near")).toContain('<a class="badge warning" href="runbooks/TradingMarginRatioRising"');
    expect(text(page, "far")).toContain("at the last 30 minutes' trend, liquidation in about 2 h (warns within 1 h)");
    expect(section(page, "far")).not.toContain("badge warning");
    expect(text(page, "usage")).toContain("at the last 30 minutes' trend, no margin left for new orders in about 20 min warning (warns within 30 min)");
    // Graded as the alerts: the near account and the summary one are warnings, the far one ok, each counted so.
    expect(page).toMatch(/3 accounts:.*2 warning.*1 ok/s);
    expect(page.indexOf('id="account-far"')).toBeGreaterThan(page.indexOf('id="account-usage"'));
  });

  it("says what margin in use past 100 % means, and marks a negative amount with a minus sign, not colour alone", () => {
    const a = account("over", 1, 0.95);
    a.collaterals[0] = { ...a.collaterals[0]!, marginUsage: 4.882, money: [1000, -3882, 1000, -12_345.678] };
    const page = pageOf([a]);
    expect(text(page, "over")).toContain(
      "488.2 % of the margin in use over 100 %: more than the whole total margin is bound, so the available margin is negative",
    );
    expect(text(page, "over")).toContain("Available margin −3,882.00 USDC Total margin 1,000.00 USDC Unrealized PnL −12,345.68 USDC");
    expect(section(page, "over")).toContain('<span title="-12345.678 USDC">−12,345.68</span>');
  });

  it("says why a figure is not reported: the summary shape, or the endpoint that failed", () => {
    const summary = account("s", 1, undefined);
    summary.collaterals[0] = { ...summary.collaterals[0]!, shape: "summary", positions: 2 };
    const failed = {
      ...account("f", 0, undefined),
      endpoints: [
        { endpoint: "account_info", success: 0, lastFailure: { reason: "auth" as const, httpStatus: 401, message: undefined, at: 1_700_000_000_000 } },
      ],
    };
    failed.collaterals[0] = { ...failed.collaterals[0]!, answered: false };
    const page = pageOf([summary, failed]);
    expect(text(page, "s")).toContain(
      "USDC not reported: the summary shape lists no positions 2 open positions, counted but not listed in the summary shape: no liquidation distance",
    );
    expect(text(page, "f")).toContain("USDC not reported: account_info failed (auth — HTTP 401) not reported: account_info failed (auth — HTTP 401)");
    expect(text(page, "f")).toContain("account_info failing auth — HTTP 401 22:13:20 UTC");
    expect(text(page, "f")).not.toContain("Balance");
  });

  it("grades margin in use where no margin ratio is known, by the account's own thresholds, and counts it in the account's state", () => {
    const summary = (name: string, usage: number | undefined, thresholds = DEFAULT_THRESHOLDS) => {
      const a = account(name, 1, undefined, thresholds);
      a.collaterals[0] = {
        ...a.collaterals[0]!,
        shape: "summary",
        positions: 2,
        marginUsage: usage,
        marginState: usage === undefined ? undefined : grade("margin_usage", usage, thresholds),
      };
      return a;
    };
    const page = pageOf([summary("low", 0.2), summary("own", 0.7, { ...DEFAULT_THRESHOLDS, margin_usage_warning: 0.6 }), summary("high", 0.98)]);
    expect(text(page, "high")).toContain(
      "98.0 % of the margin in use — critical above 95 % critical no margin ratio: the venue reports how many positions, not the positions, so margin in use is watched instead",
    );
    expect(section(page, "high")).toContain('<a class="badge critical" href="runbooks/TradingMarginUsageCritical"');
    expect(section(page, "high")).toContain('data-metric="trading_account_margin_usage_ratio" data-account="high" data-collateral="USDC" data-value="0.98"');
    expect(text(page, "own")).toContain("70.0 % of the margin in use — warning above 60 %, critical above 95 % warning");
    expect(text(page, "low")).toContain("20.0 % of the margin in use — warning above 80 % ok");
    expect([...page.matchAll(/<section class="account" id="account-([^"]+)"/g)].map((m) => m[1])).toEqual(["high", "own", "low"]);
    expect(page.match(/<p class="summary">.*?<\/p>/)?.[0].replace(/<[^>]+>/g, "")).toBe("3 accounts: 1 critical 1 warning 1 ok");
  });

  it("shows margin in use beside a known margin ratio, which alone grades", () => {
    const a = account("a", 1, 0.5);
    a.collaterals[0]!.marginUsage = 0.98;
    const page = pageOf([a]);
    expect(text(page, "a")).toContain("50.0 % — warning above 80 % ok margin ratio; 98.0 % of the margin in use");
    expect(page.match(/<p class="summary">.*?<\/p>/)?.[0].replace(/<[^>]+>/g, "")).toBe("1 account: 1 ok");
  });

  it("says no margin left for a summary shape whose total margin is 0 or less with positions open, critical", () => {
    const a = account("z", 1, undefined);
    a.collaterals[0] = { ...a.collaterals[0]!, shape: "summary", positions: 3, money: [0, 0, -5, -5], noMarginLeft: true, marginState: "critical" };
    const page = pageOf([a]);
    expect(text(page, "z")).toContain(
      "no margin left — total margin −5 USDC with positions open critical no margin ratio: the venue reports how many positions, not the positions, so margin in use is watched instead",
    );
    expect(section(page, "z")).toContain('<a class="badge critical" href="runbooks/TradingMarginUsageCritical"');
  });

  it("says no liquidation price given where the venue gave none, alone or beside the nearest position", () => {
    const none = account("none", 1, 0.1);
    none.collaterals[0]!.unpriced = 1;
    const beside = account("beside", 1, 0.1);
    beside.collaterals[0]! = {
      ...beside.collaterals[0]!,
      positions: 3,
      unpriced: 2,
      nearest: { marketId: "BTC-USD", direction: "LONG", distance: 0.3, state: "ok", entry: 6.477, liquidation: 4.5 },
    };
    const page = pageOf([none, beside]);
    expect(text(page, "none")).toContain("no liquidation price given (1 position)");
    expect(text(page, "beside")).toContain("BTC-USD LONG, from entry 6.477 to liquidation 4.5 2 other positions: no liquidation price given");
  });
});

describe("a venue that refuses the connection", () => {
  it("is named in words on the page, as the log names it: connection refused, with the code", async () => {
    // A port that was just free and is closed again: connecting to it is refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const lines: string[] = [];
    const log = createLogger("info", new Writable({ write: (chunk: Buffer, _e, done) => done(void lines.push(chunk.toString())) }));
    const config = configFromObject(
      {
        venue: { base_url: `http://127.0.0.1:${port}` },
        web: { listen_address: "127.0.0.1:0" },
        accounts: [{ name: "r", collateral_ids: ["USDC"], auth: { type: "none" } }],
      },
      {},
      "/",
    );
    const service = await startService(config, log, { self: new SelfMetrics({ defaultMetrics: false }) });
    try {
      await (await fetch(new URL("/probe?target=r", service.server.url))).text();
      const page = await (await fetch(new URL("/", service.server.url))).text();
      const said = lines.find((l) => l.includes("venue endpoint failing") && l.includes("account_info")) ?? "";
      expect(said).toContain("GET /v1/private/account-info: connection refused (ECONNREFUSED)");
      expect(page).toMatch(/<code>network<\/code> <time[^>]*>[^<]*<\/time><small>[^<]*connection refused \(ECONNREFUSED\)<\/small>/);
    } finally {
      await service.close(0);
    }
  });
});
