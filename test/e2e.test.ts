// The exporter against the simulated venue over real HTTP: every family docs/metrics.md documents and no other,
// the venue's own numbers, values that move, one failing endpoint that hides nothing else, and promtool's verdict.

import { afterEach, describe, expect, it } from "vitest";
import { checkMetrics } from "./helpers/promtool.js";
import { parseExposition, valueOf, type ParsedSample } from "./helpers/exposition.js";
import { readmeMetrics } from "./helpers/readme-metrics.js";
import { startStack, type Stack } from "./helpers/stack.js";

const DOCUMENTED = readmeMetrics();

/** Documented families without a sample in a healthy scrape of the simulated venue, each with why. */
const ONLY_SOMETIMES: Record<string, string> = {
  trading_position_margin_input_missing: "no series while every position's market is listed with its tier settings (the golden odd and margin cases show it)",
};

/** the Prometheus client's process and Node.js metrics: on /metrics, not in the metrics table. */
const RUNTIME_FAMILY = /^(?:process|nodejs)_/;

type Json = Record<string, unknown>;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function scrapeSamples(s: Stack): Promise<ParsedSample[]> {
  return parseExposition(await s.scrape());
}

describe("exporter against the simulated venue", () => {
  it("answers every family in the Prometheus text format, and promtool finds nothing", async () => {
    stack = await startStack();
    const res = await stack.get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    const names = new Set(parseExposition(text).map((s) => s.name));
    const missing = DOCUMENTED.filter((f) => !names.has(f.name) && !(f.name in ONLY_SOMETIMES)).map((f) => f.name);
    expect(missing).toEqual([]);
    // An exception that shows up anyway is stale: drop it from ONLY_SOMETIMES.
    expect(Object.keys(ONLY_SOMETIMES).filter((f) => names.has(f))).toEqual([]);
    expect(checkMetrics(text)).toBe("");
  });

  it("exports only families docs/metrics.md documents, each with exactly its documented labels", async () => {
    stack = await startStack({ defaultMetrics: true });
    const text = await stack.scrape();
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    expect(families.some((f) => RUNTIME_FAMILY.test(f))).toBe(true);
    const documented = new Map(DOCUMENTED.map((f) => [f.name, f.labels]));
    expect(families.filter((f) => !documented.has(f) && !RUNTIME_FAMILY.test(f))).toEqual([]);
    // Each sample carries only documented label names (markets' scrape_success has no account), and
    // across a family's samples every documented label name is used.
    const seen = new Map<string, Set<string>>();
    const undocumented: string[] = [];
    for (const s of parseExposition(text)) {
      if (RUNTIME_FAMILY.test(s.name)) continue;
      const allowed = documented.get(s.name);
      const used = seen.get(s.name) ?? new Set<string>();
      seen.set(s.name, used);
      for (const label of Object.keys(s.labels)) {
        used.add(label);
        if (!allowed?.includes(label)) undocumented.push(`${s.name}{${label}}`);
      }
      if (allowed === undefined) undocumented.push(s.name);
    }
    expect([...new Set(undocumented)]).toEqual([]);
    const unused = [...seen].flatMap(([name, used]) => (documented.get(name) ?? []).filter((l) => !used.has(l)).map((l) => `${name}{${l}}`));
    expect(unused).toEqual([]);
  });

  it("exports exactly the venue's own numbers for both account shapes", async () => {
    stack = await startStack();
    const samples = await scrapeSamples(stack);
    const detailed = (await stack.venueJson("v1/private/account-info?collateralId=USDC")) as Json;
    const summary = (await stack.venueJson("v1/private/account-info?collateralId=USDT")) as Json;
    expect(Array.isArray(detailed.positions)).toBe(true);
    expect(typeof summary.positions).toBe("number");
    for (const [collateral, body] of [
      ["USDC", detailed],
      ["USDT", summary],
    ] as const) {
      const labels = { account: "sim", collateral_id: collateral };
      expect(valueOf(samples, "trading_account_collateral_balance", labels)).toBe(Number(body.collateralBalance));
      expect(valueOf(samples, "trading_account_available_margin", labels)).toBe(Number(body.availableMargin));
      expect(valueOf(samples, "trading_account_total_invested", labels)).toBe(Number(body.totalInvested));
      expect(valueOf(samples, "trading_account_total_margin", labels)).toBe(Number(body.totalMargin));
      expect(valueOf(samples, "trading_account_unrealized_pnl", labels)).toBe(Number(body.totalUnrealizedPnl));
    }
    const positions = detailed.positions as Json[];
    expect(valueOf(samples, "trading_account_positions", { collateral_id: "USDC" })).toBe(positions.length);
    expect(valueOf(samples, "trading_account_positions", { collateral_id: "USDT" })).toBe(summary.positions);
    for (const p of positions) {
      const labels = { collateral_id: "USDC", market_id: String(p.marketId), direction: String(p.direction) };
      expect(valueOf(samples, "trading_position_size", labels)).toBe(Number(p.size));
      expect(valueOf(samples, "trading_position_liquidation_price", labels)).toBe(Number(p.liquidationPrice));
      expect(valueOf(samples, "trading_position_maintenance_margin", labels)).toBe(Number(p.maintenanceMargin));
    }
    const markets = (await stack.venueJson("v1/public/markets")) as Json[];
    for (const m of markets) {
      const settings = m.settings as Json;
      expect(valueOf(samples, "trading_market_max_leverage", { market_id: String(m.id) })).toBe(settings.maxLeverage);
      expect(valueOf(samples, "trading_market_maintenance_margin_ratio", { market_id: String(m.id) })).toBe(settings.maintenanceMarginFraction);
    }
    const active = (await stack.venueJson("v1/private/orders/realtime?limit=1000")) as Json[];
    const counted = samples.filter((s) => s.name === "trading_active_orders").reduce((n, s) => n + s.value, 0);
    expect(counted).toBe(active.length);
  });

  it("reads the whole history in pages up to the configured maximum", async () => {
    stack = await startStack({ env: { TRADING_HISTORY_PAGE_SIZE: "30", TRADING_HISTORY_MAX_ORDERS: "100" } });
    stack.venue.resetStats();
    const samples = await scrapeSamples(stack);
    expect(valueOf(samples, "trading_order_history_fetched_orders", { account: "sim" })).toBe(100);
    expect(stack.venue.stats().requests.orders_history).toBe(4); // 30 + 30 + 30 + 10
  });

  it("shows values that change as the venue moves", async () => {
    stack = await startStack();
    const before = await scrapeSamples(stack);
    stack.venue.tick(5);
    const after = await scrapeSamples(stack);
    const pnl = (s: ParsedSample[]) => valueOf(s, "trading_account_unrealized_pnl", { collateral_id: "USDC" });
    expect(pnl(after)).not.toBe(pnl(before));
  });

  it("marks one failing endpoint and keeps every other endpoint's series", async () => {
    stack = await startStack();
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "status", status: 503 }]);
    const samples = await scrapeSamples(stack);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active" })).toBe(0);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "account_info" })).toBe(1);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
    expect(valueOf(samples, "trading_up", { account: "sim" })).toBe(0);
    expect(samples.some((s) => s.name === "trading_active_orders")).toBe(false);
    expect(samples.some((s) => s.name === "trading_account_margin_ratio")).toBe(true);
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "http_5xx" })).toBe(1);
    expect(stack.logs.some((l) => l.includes("venue endpoint failing") && l.includes("orders_active"))).toBe(true);
  });

  it("reports a wrong key as reason auth on the private endpoints only", async () => {
    stack = await startStack({ env: { TRADING_API_KEY: "wrong-key-123" } });
    const samples = await scrapeSamples(stack);
    for (const endpoint of ["account_info", "orders_active", "orders_history"]) {
      expect(valueOf(samples, "trading_scrape_success", { endpoint })).toBe(0);
      expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint, reason: "auth" })).toBe(1);
    }
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
    expect(stack.logs.join("\n")).not.toContain("wrong-key-123");
  });

  it("serves health paths and refuses other methods", async () => {
    stack = await startStack();
    expect((await stack.get("/-/healthy")).status).toBe(200);
    expect((await stack.get("/-/ready")).status).toBe(200);
    const post = await fetch(new URL("/metrics", stack.server.url), { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("x-powered-by")).toBeNull();
    expect((await stack.get("/metrics", { "x-prometheus-scrape-timeout-seconds": "soon" })).status).toBe(400);
  });
});

describe("an unchanged venue body", () => {
  it("is not read again, yet its invalid fields are counted on every scrape", async () => {
    stack = await startStack();
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "wrong_types" }]);
    const invalid = (s: ParsedSample[]) =>
      s.filter((x) => x.name === "trading_exporter_invalid_fields_total" && x.labels.endpoint === "orders_active").reduce((n, x) => n + x.value, 0);
    const first = await scrapeSamples(stack);
    const second = await scrapeSamples(stack);
    expect(invalid(first)).toBeGreaterThan(0);
    expect(invalid(second)).toBe(2 * invalid(first));
    const series = (s: ParsedSample[]) =>
      s.filter((x) => x.name.startsWith("trading_active_orders")).map((x) => `${x.name}${JSON.stringify(x.labels)} ${x.value}`);
    expect(series(second)).toEqual(series(first));
    stack.venue.clearFaults();
    stack.venue.tick(3);
    expect(series(await scrapeSamples(stack))).not.toEqual(series(first));
  });
});
