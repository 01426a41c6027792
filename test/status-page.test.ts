// The status page without a browser: escaping by construction, the alert thresholds, and a page that reads
// the latest collection and never makes one.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { html } from "../src/http/html.js";
import {
  LIQUIDATION_DISTANCE_CRITICAL,
  LIQUIDATION_DISTANCE_WARNING,
  liquidationState,
  MARGIN_RATIO_CRITICAL,
  MARGIN_RATIO_WARNING,
  marginState,
} from "../src/http/risk-levels.js";
import type { StatusData } from "../src/http/status-data.js";
import { duration, percent, statusPage } from "../src/http/status-page.js";
import { startStack, type Stack } from "./helpers/stack.js";
import { dig, readYaml } from "./helpers/yaml-files.js";

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

describe("the status page's thresholds", () => {
  const rules = readYaml("prometheus/rules/trading.rules.yml");
  const groups = (dig(rules, "groups") as Array<{ rules: Array<{ alert?: string; expr?: string }> }>) ?? [];
  const rule = (name: string) =>
    groups.flatMap((g) => g.rules as Array<{ alert?: string; record?: string; expr?: string }>).find((r) => r.alert === name || r.record === name);
  const expr = (name: string) => rule(name)?.expr ?? "";
  const literal = (alert: string, op: string) => Number(new RegExp(`\\${op}\\s*([0-9.]+)\\s*$`).exec(expr(alert).trim())?.[1]);
  /** The firing threshold of a tier with hysteresis: the first comparison of its recording rule. */
  const firing = (record: string, op: string) => Number(new RegExp(`\\${op}\\s*([0-9.]+)`).exec(expr(record))?.[1]);

  it("are the literals of the alerts they stand for", () => {
    expect(MARGIN_RATIO_WARNING).toBe(literal("TradingMarginRatioHigh", ">"));
    expect(MARGIN_RATIO_CRITICAL).toBe(literal("TradingMarginRatioCritical", ">"));
    // TradingPositionNearLiquidation fires through this recording rule (it resolves higher, at 0.06).
    expect(expr("TradingPositionNearLiquidation")).toContain("trading:position_liquidation_distance_ratio:critical");
    expect(LIQUIDATION_DISTANCE_CRITICAL).toBe(firing("trading:position_liquidation_distance_ratio:critical", "<"));
    expect(expr("TradingPositionApproachingLiquidation")).toContain("trading:position_liquidation_distance_ratio:warning");
    expect(LIQUIDATION_DISTANCE_WARNING).toBe(firing("trading:position_liquidation_distance_ratio:warning", "<"));
  });

  it("grade a liquidation distance as the two tiers fire: strictly below 5% critical, below 10% warning", () => {
    expect([0, 0.04, LIQUIDATION_DISTANCE_CRITICAL, 0.07, LIQUIDATION_DISTANCE_WARNING, 0.3].map(liquidationState)).toEqual([
      "critical",
      "critical",
      "warning",
      "warning",
      "ok",
      "ok",
    ]);
  });

  it("grade as the alerts compare: strictly above each threshold, +Inf critical", () => {
    expect([0, MARGIN_RATIO_WARNING, 0.85, MARGIN_RATIO_CRITICAL, 0.95, Number.POSITIVE_INFINITY].map(marginState)).toEqual([
      "ok",
      "ok",
      "warning",
      "warning",
      "critical",
      "critical",
    ]);
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
    expect([0.8, 0.91234, 1, Number.POSITIVE_INFINITY].map(percent)).toEqual(["80.0 %", "91.2 %", "100.0 %", "∞"]);
  });
});

describe("statusPage", () => {
  it("escapes an account's and a market's names wherever they appear", () => {
    const name = `<img src=x onerror="alert(1)">`;
    const data: StatusData = {
      accounts: [
        {
          name,
          up: 1,
          collectedAtSeconds: 1_700_000_000,
          collaterals: [
            {
              collateralId: name,
              answered: true,
              positions: 1,
              marginRatio: 0.5,
              marginState: "ok",
              nearest: { marketId: name, direction: "LONG", distance: 0.2, state: "ok" },
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

  it("serves its stylesheet as CSS that caches", async () => {
    const res = await stack.get("/status.css");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(await res.text()).toContain("@media (max-width: 480px)");
  });
});

describe("a desk of several accounts", () => {
  const account = (name: string, up: number | undefined, ratio: number | undefined): StatusData["accounts"][number] => ({
    name,
    up,
    collectedAtSeconds: up === undefined ? undefined : 1_700_000_000,
    collaterals: [
      {
        collateralId: "USDC",
        answered: up !== undefined,
        positions: 1,
        marginRatio: ratio,
        marginState: ratio === undefined ? undefined : marginState(ratio),
        nearest: undefined,
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
});
