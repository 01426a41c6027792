// Thresholds per account, end to end: a config file gives account a its own margin thresholds and leaves b at the
// defaults; the exporter exports both, a real Prometheus on the shipped rules (timings shortened) raises the
// critical alert for a alone on the same margin ratio, the status page agrees, and a reload that moves a back to
// the defaults ends the alert. The series stay while an account is down and over the series cap.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { THRESHOLD_KEYS } from "../src/config/threshold-table.js";
import type { Config } from "../src/config/types.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { testRules } from "./helpers/alerting-files.js";
import { loadConfigFile } from "./helpers/config-files.js";
import { parseExposition } from "./helpers/exposition.js";
import { RULES_FILE, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { ACCOUNT, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

const TIMEOUT_MS = 60_000;

/** One collateral at a margin ratio of 0.6 (600 / 1000), with a LONG at 100 liquidated at 105 and a SHORT at 200 at 210. */
const ANSWER = {
  collateralBalance: "950",
  availableMargin: "400",
  totalInvested: "600",
  totalMargin: "1000",
  totalUnrealizedPnl: "50",
  positions: [
    { marketId: "BTC-USD", direction: "LONG", size: "1", avgExecutionPrice: "100", liquidationPrice: "105", maintenanceMargin: "300" },
    { marketId: "ETH-USD", direction: "SHORT", size: "1", avgExecutionPrice: "200", liquidationPrice: "210", maintenanceMargin: "300" },
  ].map((p) => ({ ...p, marginAmount: "10", borrowedAmount: "0", leverage: "2", realizedPnl: "0" })),
};

const quiet = () => createLogger("warn", new Writable({ write: (_c, _e, done) => done() }));

/** The exporter on `venue` from a config file it re-reads on reload; `write` rewrites that file. */
async function exporterOn(venue: TinyVenue, accounts: (thresholdsOfA: unknown) => unknown[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "te-thresholds-"));
  const path = join(dir, "config.yml");
  const write = (thresholdsOfA: unknown) => writeFileSync(path, stringify({ venue: { base_url: venue.url }, accounts: accounts(thresholdsOfA) }));
  write({ margin_ratio_warning: 0.4, margin_ratio_critical: 0.5 });
  const load = (): Config => loadConfigFile(path, { TRADING_LISTEN_ADDRESS: "127.0.0.1:0", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0", ...env });
  const service = await startService(load(), quiet(), { self: new SelfMetrics({ defaultMetrics: false }), source: load });
  const get = async (path: string) => (await fetch(new URL(path, service.server.url))).text();
  return { service, dir, write, get };
}

const twoAccounts = (thresholdsOfA: unknown) => [
  { name: "a", collateral_ids: ["USDC"], auth: { type: "none" }, ...(thresholdsOfA === undefined ? {} : { thresholds: thresholdsOfA }) },
  { name: "b", collateral_ids: ["USDC"], auth: { type: "none" } },
];

/** `trading_account_alert_threshold` of an exposition as "account key value" lines. */
const thresholdLines = (text: string) =>
  parseExposition(text)
    .filter((s) => s.name === "trading_account_alert_threshold" && /^margin_ratio_/.test(s.labels.threshold ?? ""))
    .map((s) => `${s.labels.account} ${s.labels.threshold} ${s.value}`);

/** The text of an account's section of the status page, tags left out. */
const sectionText = (page: string, name: string) => {
  const from = page.indexOf(`id="account-${name}"`);
  return page.slice(from, page.indexOf("</section>", from));
};

describe("thresholds per account with a real Prometheus on the shipped rules", () => {
  let venue: TinyVenue | undefined;
  let exporter: Awaited<ReturnType<typeof exporterOn>> | undefined;
  let prom: RunningPrometheus | undefined;
  let rulesDir: string | undefined;
  const e = () => exporter ?? fail("the exporter did not start");
  const p = () => prom ?? fail("Prometheus did not start");
  function fail(message: string): never {
    throw new Error(message);
  }
  const firing = async (account: string) =>
    (await p().series(`ALERTS{alertname=~"TradingMarginRatio.*",account="${account}"}`)).map((s) => `${s.metric.alertname} ${s.metric.alertstate}`).sort();

  beforeAll(async () => {
    venue = await startTinyVenue({ account: ANSWER });
    exporter = await exporterOn(venue, twoAccounts);
    rulesDir = mkdtempSync(join(tmpdir(), "te-thresholds-rules-"));
    const rulesFile = join(rulesDir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8")));
    prom = await startPrometheus(new URL(exporter.service.server.url).host, { rulesFile });
  }, TIMEOUT_MS);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await exporter?.service.close(1000);
    await venue?.close();
    for (const dir of [rulesDir, exporter?.dir]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("exports 0.5 and 0.4 for a, 0.9 and 0.8 for b, and the signed distances of a LONG and a SHORT", async () => {
    const text = await e().get("/metrics");
    expect(thresholdLines(text)).toEqual([
      "a margin_ratio_warning 0.4",
      "a margin_ratio_critical 0.5",
      "b margin_ratio_warning 0.8",
      "b margin_ratio_critical 0.9",
    ]);
    expect(thresholdLines(await e().get("/probe?target=a"))).toEqual(["a margin_ratio_warning 0.4", "a margin_ratio_critical 0.5"]);
    const distances = parseExposition(text)
      .filter((s) => s.name === "trading_position_liquidation_distance_ratio" && s.labels.account === "a")
      .map((s) => `${s.labels.direction} ${s.value}`);
    expect(distances).toEqual(["LONG -0.05", "SHORT 0.05"]);
    console.log(`exported: ${thresholdLines(text).join(", ")}; distances of a: ${distances.join(", ")}`);
  });

  it(
    "raises TradingMarginRatioCritical for a alone at a margin ratio of 0.6 on both; the page marks a critical and leaves b unmarked",
    async () => {
      const t0 = Date.now();
      await waitFor(
        "TradingMarginRatioCritical firing for a",
        async () => ((await firing("a")).includes("TradingMarginRatioCritical firing") ? true : undefined),
        TIMEOUT_MS,
        () => p().logTail(),
      );
      const fired = Date.now() - t0;
      // b's ratio is the same 0.6, in Prometheus: b is judged, and nothing of it is even pending.
      expect((await p().series('trading_account_margin_ratio{account="b"}')).map((s) => s.value[1])).toEqual(["0.6"]);
      expect(await firing("b")).toEqual([]);
      // a's own warning (0.4) too; its `for` is twice the critical's, so it may still be pending.
      expect(await firing("a")).toEqual(["TradingMarginRatioCritical firing", expect.stringMatching(/^TradingMarginRatioHigh (pending|firing)$/)]);
      const description = (await p().alerts()).find((al) => al.labels.alertname === "TradingMarginRatioCritical")?.annotations.description;
      expect(description).toBe("Maintenance margin of account a (USDC) is 60% of its total margin (critical above 50%, liquidation at 100%).");

      const page = await e().get("/");
      const a = sectionText(page, "a");
      const b = sectionText(page, "b");
      expect(a).toMatch(
        /<td class="critical" data-metric="trading_account_margin_ratio"[^>]*><strong>60\.0 %<\/strong> <span class="limit">— critical above 50 %<\/span>/,
      );
      expect(b).toMatch(
        /<td class="ok" data-metric="trading_account_margin_ratio"[^>]*><strong>60\.0 %<\/strong> <span class="limit">— warning above 80 %<\/span>/,
      );
      // The nearest liquidation, the LONG, lies beyond its entry: critical, in its own words, on both.
      for (const section of [a, b])
        expect(section).toContain('−5.0 %</strong> <span class="limit">— liquidation price is beyond the entry: the position lives on unrealized gains</span>');
      console.log(
        `TradingMarginRatioCritical firing for a ${(fired / 1000).toFixed(1)} s after the test started watching (for: 2 s in the test copy); none for b`,
      );
    },
    TIMEOUT_MS + 10_000,
  );

  it(
    "ends the alert when a reload moves a back to the defaults",
    async () => {
      e().write(undefined);
      const t0 = Date.now();
      const res = await fetch(new URL("/-/reload", e().service.server.url), { method: "POST" });
      expect(res.status).toBe(200);
      expect(thresholdLines(await e().get("/metrics")).slice(0, 2)).toEqual(["a margin_ratio_warning 0.8", "a margin_ratio_critical 0.9"]);
      await waitFor(
        "no margin alert for a",
        async () => ((await firing("a")).length === 0 ? true : undefined),
        TIMEOUT_MS,
        () => p().logTail(),
      );
      const ended = Date.now() - t0;
      expect(sectionText(await e().get("/"), "a")).toMatch(/<td class="ok" data-metric="trading_account_margin_ratio"/);
      console.log(`reload to a at the defaults: both margin alerts of a gone from Prometheus ${(ended / 1000).toFixed(1)} s after the reload`);
    },
    TIMEOUT_MS + 10_000,
  );
});

describe("the threshold series", () => {
  it("stay on /metrics and the account's /probe while the account is down, and are never dropped by the series cap", async () => {
    const venue = await startTinyVenue({ account: ANSWER, raw: { [ACCOUNT]: { status: 503, body: "" } } });
    const exporter = await exporterOn(venue, twoAccounts, { TRADING_MAX_SERIES: "1" });
    try {
      const text = await exporter.get("/metrics");
      const samples = parseExposition(text);
      expect(samples.filter((s) => s.name === "trading_up").map((s) => `${s.labels.account} ${s.value}`)).toEqual(["a 0", "b 0"]);
      expect(thresholdLines(text)).toEqual([
        "a margin_ratio_warning 0.4",
        "a margin_ratio_critical 0.5",
        "b margin_ratio_warning 0.8",
        "b margin_ratio_critical 0.9",
      ]);
      expect(samples.filter((s) => s.name.startsWith("trading_account_alert_threshold")).length).toBe(2 * THRESHOLD_KEYS.length);
      expect(thresholdLines(await exporter.get("/probe?target=b"))).toEqual(["b margin_ratio_warning 0.8", "b margin_ratio_critical 0.9"]);
      // The venue answers the account again: the cap of 1 now cuts the account's series, never the thresholds.
      venue.options.raw = {};
      const capped = parseExposition(await exporter.get("/metrics"));
      expect(capped.filter((s) => s.name.startsWith("trading_account_alert_threshold")).length).toBe(2 * THRESHOLD_KEYS.length);
      expect(capped.filter((s) => s.name === "trading_account_margin_ratio").length).toBe(0);
      expect(capped.find((s) => s.name === "trading_exporter_series_dropped_total")?.value ?? 0).toBeGreaterThan(0);
    } finally {
      await exporter.service.close(1000);
      await venue.close();
      rmSync(exporter.dir, { recursive: true, force: true });
    }
  });
});
