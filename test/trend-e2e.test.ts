// Time to liquidation at the trend, end to end: the simulator's drift scenario raises the margin ratio half a point
// a tick (a tick a second), and Debian's Prometheus on the shipped rules (timings and windows shortened as for the
// other end-to-end tests: a 15 s scrape is 1 s here) warns with TradingMarginRatioRising before the ratio reaches
// the 80 % of TradingMarginRatioHigh, in the words a person reads.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRules } from "./helpers/alerting-files.js";
import { RULES_FILE, scrapedOnce, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { startStack, type Stack } from "./helpers/stack.js";

const TIMEOUT_MS = 90_000;

describe("a margin ratio drifting up, with a real Prometheus on the shipped rules", () => {
  let stack: Stack | undefined;
  let prom: RunningPrometheus | undefined;
  const dir = mkdtempSync(join(tmpdir(), "te-trend-"));
  const p = () => prom ?? fail("Prometheus did not start");
  const s = () => stack ?? fail("the stack did not start");
  function fail(message: string): never {
    throw new Error(message);
  }

  beforeAll(async () => {
    stack = await startStack({ venue: { tickMs: 1000 }, env: { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" } });
    const rulesFile = join(dir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8"), `${stack.server.url}runbooks/`));
    prom = await startPrometheus(new URL(stack.server.url).host, { rulesFile });
  }, TIMEOUT_MS);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it(
    "warns TradingMarginRatioRising with the time to liquidation before the ratio reaches its warning threshold",
    async () => {
      await scrapedOnce(p());
      const started = Date.now();
      s().venue.setScenario("drift");
      const alert = await waitFor(
        "TradingMarginRatioRising firing",
        async () => (await p().alerts()).find((a) => a.labels.alertname === "TradingMarginRatioRising" && a.state === "firing"),
        TIMEOUT_MS - 10_000,
        () => p().logTail(),
      );
      const seconds = (Date.now() - started) / 1000;
      const [ratio] = (await p().series('max(trading_account_margin_ratio{account="sim"})')).map((r) => Number(r.value[1]));
      expect(alert.labels).toMatchObject({ severity: "warning", account: "sim" });
      expect(alert.annotations.summary).toMatch(
        /^At the last 30 minutes' trend, account sim \(\w+\) reaches liquidation in about \d+m \d+s\.$|^At the last 30 minutes' trend, account sim \(\w+\) reaches liquidation in about \d+s\.$/,
      );
      // Before the threshold alerts: the ratio is still below the 80 % warning, and nothing of them fires.
      expect(ratio).toBeLessThan(0.8);
      const threshold = (await p().alerts()).filter((a) => /^TradingMarginRatio(High|Critical)$/.test(a.labels.alertname ?? "") && a.state === "firing");
      expect(threshold).toEqual([]);
      console.log(
        `drift: TradingMarginRatioRising firing ${seconds.toFixed(1)} s after the drift began, margin ratio ${ratio?.toFixed(3)}: "${alert.annotations.summary}"`,
      );
    },
    TIMEOUT_MS,
  );
});
