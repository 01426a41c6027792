// A real Prometheus scrapes the exporter (against the simulated venue) and runs the shipped rules: proves the
// rules load and evaluate and the margin alerts fire under the liquidation scenario and resolve after it.
// The dashboards' queries are proven in test/dashboard-e2e.test.ts.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRules } from "./helpers/alerting-files.js";
import { RULES_FILE, startPrometheus, waitFor, type ActiveAlert, type RunningPrometheus } from "./helpers/prometheus.js";
import { startStack, type Stack } from "./helpers/stack.js";

const ACCOUNT = "sim";
const COLLATERAL = "USDC";
const MARGIN_ALERTS = ["TradingMarginRatioCritical", "TradingMarginRatioHigh"];

describe("Prometheus end to end: rules and alerts", () => {
  let stack: Stack | undefined;
  let prom: RunningPrometheus | undefined;
  let rulesDir: string | undefined;

  const p = (): RunningPrometheus => {
    if (prom === undefined) throw new Error("Prometheus did not start (see beforeAll)");
    return prom;
  };
  const s = (): Stack => {
    if (stack === undefined) throw new Error("the stack did not start (see beforeAll)");
    return stack;
  };

  beforeAll(async () => {
    // Real timestamps (order ages, last-created) and values that move every 250 ms; markets re-read every
    // second so the halt scenario shows within a few scrapes.
    stack = await startStack({
      venue: { epochMs: Date.now(), tickMs: 250 },
      env: { TRADING_MARKETS_CACHE_SECONDS: "1" },
    });
    // The shipped rules with `for`s of seconds instead of minutes (order kept; nothing else changes).
    rulesDir = mkdtempSync(join(tmpdir(), "te-prometheus-e2e-"));
    const rulesFile = join(rulesDir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8")));
    prom = await startPrometheus(new URL(stack.server.url).host, { rulesFile });
  }, 60_000);

  afterAll(async () => {
    // Each step on its own so a failure of one still runs the other.
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await stack?.close().catch((err: unknown) => console.error("closing the stack:", err));
    if (rulesDir !== undefined) rmSync(rulesDir, { recursive: true, force: true });
  }, 30_000);

  it("scrapes the exporter and evaluates every rule without error", async () => {
    await waitFor(
      'up{job="trading"} == 1',
      async () => ((await p().series('up{job="trading"} == 1')).length === 1 ? true : undefined),
      60_000,
      () => p().logTail(),
    );

    // Wait until every rule has been evaluated at least once and every recording rule has output.
    const groups = await waitFor(
      "every rule evaluated and every recording rule with data",
      async () => {
        const groups = await p().ruleGroups();
        const rules = groups.flatMap((g) => g.rules);
        if (rules.length === 0 || rules.some((r) => r.health === "unknown")) return undefined;
        // The liquidation-distance tiers have output only while a position is near liquidation (not in a healthy venue).
        const quiet = new Set(["trading:position_liquidation_distance_ratio:critical", "trading:position_liquidation_distance_ratio:warning"]);
        for (const r of rules.filter((r) => r.type === "recording" && !quiet.has(r.name))) {
          if ((await p().series(r.name)).length === 0) return undefined;
        }
        return groups;
      },
      60_000,
    );

    expect(groups.map((g) => g.name).sort()).toEqual(["trading.alerts", "trading.recording"]);
    const broken = groups.flatMap((g) => g.rules.filter((r) => r.health !== "ok").map((r) => `${g.name}/${r.name}: ${r.health} ${r.lastError ?? ""}`));
    expect(broken, `rules with errors:\n${broken.join("\n")}`).toEqual([]);
  }, 120_000);

  it("fires TradingMarginRatioCritical under the liquidation scenario and resolves it after", async () => {
    const marginAlerts = (alerts: ActiveAlert[]) =>
      alerts.filter((a) => MARGIN_ALERTS.includes(a.labels.alertname ?? "") && a.labels.account === ACCOUNT && a.labels.collateral_id === COLLATERAL);
    expect(marginAlerts(await p().alerts()), "margin alerts active before the liquidation scenario").toEqual([]);

    // Halt too (idempotent), so the not-tradable alert fires alongside.
    s().venue.setScenario("halt");
    const halted = s().venue.info().haltedMarket;
    s().venue.setScenario("liquidation");

    let last: ActiveAlert[] = [];
    const critical = await waitFor(
      "TradingMarginRatioCritical firing for sim/USDC (for: 2 s in the test copy)",
      async () => {
        last = await p().alerts();
        return last.find(
          (a) =>
            a.labels.alertname === "TradingMarginRatioCritical" &&
            a.state === "firing" &&
            a.labels.account === ACCOUNT &&
            a.labels.collateral_id === COLLATERAL,
        );
      },
      150_000,
      () => `active alerts:\n${JSON.stringify(last, null, 2)}`,
    );

    expect(critical.labels.severity).toBe("critical");
    const ratio = Number(critical.value);
    expect(ratio).toBeGreaterThan(0.9);
    const { summary = "", description = "", runbook_url: runbook = "" } = critical.annotations;
    for (const text of [summary, description]) {
      expect(text, "annotation with an unrendered template").not.toMatch(/\{\{|<no value>|%!/);
    }
    expect(summary).toMatch(new RegExp(`\\baccount ${ACCOUNT}\\b`, "i"));
    expect(description).toContain(`account ${ACCOUNT} (${COLLATERAL})`);
    const shown = /is ([\d.]+)% of its total margin/.exec(description);
    expect(shown, `description without the value: ${description}`).not.toBeNull();
    expect(Number(shown?.[1])).toBeCloseTo(ratio * 100, 1);
    expect(runbook).toBe("http://localhost:9842/runbooks/TradingMarginRatioCritical");

    // The warning (twice the critical's for) is on its way; the market halted with a position fires too.
    const high = last.find((a) => a.labels.alertname === "TradingMarginRatioHigh" && a.labels.account === ACCOUNT && a.labels.collateral_id === COLLATERAL);
    expect(high?.state, "TradingMarginRatioHigh should be pending or firing").toMatch(/^(pending|firing)$/);
    await waitFor(
      `TradingMarketNotTradableWithPositions firing for ${halted}`,
      async () => {
        last = await p().alerts();
        return last.find((a) => a.labels.alertname === "TradingMarketNotTradableWithPositions" && a.state === "firing" && a.labels.market_id === halted);
      },
      30_000,
      () => `active alerts:\n${JSON.stringify(last, null, 2)}`,
    );

    s().venue.setScenario("normal");
    await waitFor(
      "margin and not-tradable alerts to resolve after the normal scenario",
      async () => {
        last = await p().alerts();
        const still = [...marginAlerts(last), ...last.filter((a) => a.labels.alertname === "TradingMarketNotTradableWithPositions")];
        return still.length === 0 ? true : undefined;
      },
      60_000,
      () => `still active:\n${JSON.stringify(last, null, 2)}`,
    );
    const rules = (await p().ruleGroups()).flatMap((g) => g.rules).filter((r) => MARGIN_ALERTS.includes(r.name));
    expect(rules.map((r) => `${r.name}: ${r.state}`).sort()).toEqual(MARGIN_ALERTS.map((name) => `${name}: inactive`).sort());
  }, 240_000);
});
