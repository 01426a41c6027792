// Every collateral watched, end to end: Debian's Prometheus on the shipped rules (timings shortened) pages margin in
// use for a summary-shape account at 98 % and not at 20 %, leaves a detailed account at 98 % in use to its margin
// ratio (below its warning: no margin alert), and never pages a liquidation price of 0, for a SHORT or a LONG.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService, type Service } from "../src/lifecycle.js";
import { testRules } from "./helpers/alerting-files.js";
import { configFromObject } from "./helpers/config-files.js";
import { RULES_FILE, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

const TIMEOUT_MS = 60_000;

const summary = (collateralId: string, availableMargin: number) => ({
  collateralId,
  collateralBalance: 1000,
  availableMargin,
  totalInvested: 1000 - availableMargin,
  totalMargin: 1000,
  totalUnrealizedPnl: 0,
  positions: 2,
});
const position = (direction: string, avgExecutionPrice: string, liquidationPrice: string, maintenanceMargin: string) => ({
  marketId: direction === "LONG" ? "BTC-USD" : "ETH-USD",
  direction,
  size: "1",
  avgExecutionPrice,
  liquidationPrice,
  maintenanceMargin,
  marginAmount: "10",
  borrowedAmount: "0",
  leverage: "3",
  realizedPnl: "0",
});
const detailed = (availableMargin: string, positions: unknown[]) => ({
  collateralBalance: "1000",
  availableMargin,
  totalInvested: "0",
  totalMargin: "1000",
  totalUnrealizedPnl: "0",
  positions,
});

/** Each account has one collateral, whose id picks its answer from the venue. */
const ANSWERS: Record<string, unknown> = {
  // 980 of 1000 in use, no margin ratio: pages.
  S98: summary("S98", 20),
  // 200 of 1000 in use: quiet.
  S20: summary("S20", 800),
  // 980 of 1000 in use, margin ratio 300 / 1000 = 0.3, below its warning: the ratio judges, quiet.
  D98: detailed("20", [position("LONG", "100", "50", "300")]),
  // A SHORT and a LONG whose venue gives a liquidation price of 0: no distance, no page.
  Z: detailed("900", [position("SHORT", "6.477", "0", "5"), position("LONG", "100", "0", "5")]),
};
const ACCOUNTS = { sum98: "S98", sum20: "S20", det98: "D98", zero: "Z" } as const;

const quiet = () => createLogger("warn", new Writable({ write: (_c, _e, done) => done() }));

describe("margin in use and a liquidation price of 0 with a real Prometheus on the shipped rules", () => {
  let venue: TinyVenue | undefined;
  let service: Service | undefined;
  let prom: RunningPrometheus | undefined;
  let rulesDir: string | undefined;
  const p = () => prom ?? fail("Prometheus did not start");
  function fail(message: string): never {
    throw new Error(message);
  }
  const alerts = async (selector: string) =>
    (await p().series(`ALERTS{${selector}}`)).map((s) => `${s.metric.account} ${s.metric.alertname} ${s.metric.alertstate}`).sort();

  beforeAll(async () => {
    venue = await startTinyVenue({ accountByCollateral: ANSWERS });
    const config = configFromObject(
      {
        venue: { base_url: venue.url },
        accounts: Object.entries(ACCOUNTS).map(([name, collateral]) => ({ name, collateral_ids: [collateral], auth: { type: "none" } })),
      },
      { TRADING_LISTEN_ADDRESS: "127.0.0.1:0", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" },
      process.cwd(),
    );
    service = await startService(config, quiet(), { self: new SelfMetrics({ defaultMetrics: false }) });
    rulesDir = mkdtempSync(join(tmpdir(), "te-usage-rules-"));
    const rulesFile = join(rulesDir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8")));
    prom = await startPrometheus(new URL(service.server.url).host, { rulesFile });
  }, TIMEOUT_MS);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await service?.close(1000);
    await venue?.close();
    if (rulesDir !== undefined) rmSync(rulesDir, { recursive: true, force: true });
  }, 30_000);

  it(
    "pages the summary shape at 98 % in use, and nothing for 20 %, for 98 % beside a low margin ratio, or for a liquidation price of 0",
    async () => {
      const t0 = Date.now();
      // Both tiers of sum98 firing: the warning's `for` is the longer, so every other alert would be pending by then.
      await waitFor(
        "TradingMarginUsageHigh and TradingMarginUsageCritical firing for sum98",
        async () => ((await alerts('account="sum98", alertstate="firing"')).length === 2 ? true : undefined),
        TIMEOUT_MS,
        () => p().logTail(),
      );
      const fired = Date.now() - t0;
      expect(await alerts('account="sum98"')).toEqual(["sum98 TradingMarginUsageCritical firing", "sum98 TradingMarginUsageHigh firing"]);
      const description = (await p().alerts()).find((a) => a.labels.alertname === "TradingMarginUsageCritical")?.annotations.description;
      expect(description).toBe(
        "Positions and orders of account sum98 (S98) bind 98% of its total margin (critical above 95%). No margin ratio is reported for it, so the distance to liquidation, at the maintenance margin, is unknown.",
      );

      // Prometheus holds what each quiet account is judged on: it is quiet by the rules, not for want of data.
      const usage = Object.fromEntries((await p().series("trading_account_margin_usage_ratio")).map((s) => [s.metric.account, Number(s.value[1])] as const));
      expect(usage).toEqual({ sum98: 0.98, sum20: 0.2, det98: 0.98, zero: 0.1 });
      expect((await p().series('trading_account_margin_ratio{account="det98"}')).map((s) => s.value[1])).toEqual(["0.3"]);
      expect(await alerts('account=~"sum20|det98|zero", alertname=~"TradingMargin.+|TradingPosition.+"')).toEqual([]);
      expect(await alerts('alertname=~"TradingPosition.*Liquidation"')).toEqual([]);

      // The raw prices the venue sent stay; no distance is made of them, and their being unset is counted.
      const prices = (await p().series('trading_position_liquidation_price{account="zero"}')).map((s) => `${s.metric.direction} ${s.value[1]}`).sort();
      expect(prices).toEqual(["LONG 0", "SHORT 0"]);
      expect(await p().series('trading_position_liquidation_distance_ratio{account="zero"}')).toEqual([]);
      expect((await p().series('trading_position_liquidation_distance_ratio{account="det98"}')).map((s) => s.value[1])).toEqual(["0.5"]);
      const unset = await (await fetch(new URL("/metrics", service!.server.url))).text();
      expect(unset).toMatch(/^trading_exporter_unset_fields_total\{endpoint="account_info",field="positions\[\]\.liquidationPrice"\} [1-9]\d*$/m);

      // The status page grades the same way: sum98 critical on margin in use, det98 by its ratio, zero's prices none given.
      const page = (await (await fetch(new URL("/", service!.server.url))).text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      const section = (name: string) => page.slice(page.indexOf(` ${name} `), page.indexOf("Debug probe", page.indexOf(` ${name} `)));
      expect(section("sum98")).toContain(
        "98.0 % of the margin in use — critical above 95 % critical no margin ratio: the venue reports how many positions, not the positions, so margin in use is watched instead",
      );
      expect(section("sum98")).toContain("2 open positions, counted but not listed in the summary shape: no liquidation distance");
      expect(section("sum20")).toContain("20.0 % of the margin in use — warning above 80 % ok");
      expect(section("det98")).toContain("30.0 % — warning above 80 % ok margin ratio; 98.0 % of the margin in use");
      expect(section("zero")).toContain("no liquidation price given (2 positions)");

      console.log(
        `margin in use: sum98 (summary, 98 %) critical and warning firing ${(fired / 1000).toFixed(1)} s after the test started watching (for: 2 s and 4 s in the test copy); ` +
          "sum20 (20 %), det98 (98 % in use, margin ratio 0.3) and zero (SHORT and LONG at a liquidation price of 0) raised none",
      );
    },
    TIMEOUT_MS + 10_000,
  );
});
