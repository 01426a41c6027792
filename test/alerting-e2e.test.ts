// From margin threshold to a webhook: simulator -> exporter -> real Prometheus (shipped rules) -> real Alertmanager
// (shipped config and templates) -> the shipped webhook receiver, with only the timings shortened. Prints the
// delivery latency of each step.

import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Notification, type RunningReceiver, type WebhookAlert } from "../tools/webhook/receiver.js";
import { startAlertmanager, type AmAlert, type RunningAlertmanager } from "./helpers/alertmanager.js";
import { normalized, SCRAPE_SCALE, testAlertmanagerConfig, testRules } from "./helpers/alerting-files.js";
import { ALERTMANAGER_CONFIG, ALERTMANAGER_DIR, renderTemplate } from "./helpers/amtool.js";
import { RULES_FILE, scrapedOnce, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { startStack, type Stack } from "./helpers/stack.js";

const ACCOUNT = "sim";
const COLLATERAL = "USDC";
/** TRADING_E2E_SHIPPED_TIMINGS=1 keeps the shipped `for`s, group waits and intervals, and scrapes every 15 s as the compose stack does. */
const SHIPPED_TIMINGS = process.env.TRADING_E2E_SHIPPED_TIMINGS === "1";
const INTERVAL_SECONDS = SHIPPED_TIMINGS ? 15 : 1;
const DELIVERY_TIMEOUT_MS = SHIPPED_TIMINGS ? 300_000 : 60_000;
const STEP_TIMEOUT_MS = DELIVERY_TIMEOUT_MS + 30_000;
/** The margin alerts' gap window (`last_over_time(...[1m])` shipped), scaled like the scrape interval (15 s to 1 s) in the test copy. */
const GAP_WINDOW_MS = SHIPPED_TIMINGS ? 60_000 : 60_000 / SCRAPE_SCALE;
/** Text that must never reach a person: unrendered templates, Go's error verbs, non-numbers. */
const UNREADABLE = /\{\{|<no value>|%!|\bInf\b|\bNaN\b/;

interface Delivery {
  notification: Notification;
  alert: WebhookAlert;
}

interface Step {
  step: string;
  /** Scenario change (or exporter stop) to the evaluation at which Prometheus fired or resolved the alert (its startsAt or endsAt), ms. */
  toPrometheus: number | undefined;
  /** Scenario change to the notification at the webhook, ms; undefined when the step is that nothing arrives. */
  toWebhook: number | undefined;
  /** What a step without a delivery measured instead. */
  note?: string;
}

describe("alerting end to end: Prometheus and Alertmanager with the shipped files", () => {
  let receiver: RunningReceiver | undefined;
  let stack: Stack | undefined;
  let am: RunningAlertmanager | undefined;
  let prom: RunningPrometheus | undefined;
  const dir = mkdtempSync(join(tmpdir(), "te-alerting-"));
  const steps: Step[] = [];

  const r = (): RunningReceiver => receiver ?? fail("the webhook receiver did not start");
  const s = (): Stack => stack ?? fail("the stack did not start");
  const a = (): RunningAlertmanager => am ?? fail("Alertmanager did not start");
  const p = (): RunningPrometheus => prom ?? fail("Prometheus did not start");
  function fail(message: string): never {
    throw new Error(message);
  }

  const runbookBase = () => `${s().server.url}runbooks/`;
  const isOurs = (alert: WebhookAlert) => alert.labels.account === ACCOUNT && alert.labels.collateral_id === COLLATERAL;
  const delivered = (since: number, alertname: string, status: "firing" | "resolved", match: (al: WebhookAlert) => boolean = () => true): Delivery[] =>
    r()
      .notifications()
      .filter((n) => n.receivedAt >= since)
      .flatMap((notification) => notification.alerts.map((alert) => ({ notification, alert })))
      .filter((d) => d.alert.labels.alertname === alertname && d.alert.status === status && match(d.alert));

  /**
   * Runs `act`, then waits for `alertname` to be delivered with `status`; records when Prometheus's rule saw
   * the change and when the notification reached the webhook.
   */
  async function step(
    name: string,
    act: () => unknown,
    alertname: string,
    status: "firing" | "resolved",
    match: (al: WebhookAlert) => boolean = () => true,
  ): Promise<Delivery> {
    const t0 = Date.now();
    await act();
    const delivery = await waitFor(
      `${alertname} ${status} delivered to the webhook (${name})`,
      async () => delivered(t0, alertname, status, match)[0],
      DELIVERY_TIMEOUT_MS,
      () => `Alertmanager log:\n${a().logTail()}\nnotifications:\n${JSON.stringify(r().notifications().slice(-5), null, 1)}`,
    );
    // Prometheus's own timestamps: startsAt is the evaluation that fired the alert (after `for`), endsAt the
    // one that resolved it.
    const seen = Date.parse(status === "firing" ? delivery.alert.startsAt : delivery.alert.endsAt);
    steps.push({ step: name, toPrometheus: Number.isFinite(seen) ? seen - t0 : undefined, toWebhook: delivery.notification.receivedAt - t0 });
    return delivery;
  }

  /** Renders the shipped templates with a delivered notification's own data, as a Slack or e-mail receiver would. */
  function rendered(notification: Notification): string {
    const file = join(dir, `notification-${notification.receivedAt}.json`);
    writeFileSync(file, JSON.stringify(notification.payload));
    return renderTemplate('{{ template "trading.title" . }}\n{{ template "trading.text" . }}', file);
  }

  async function inhibitedInAlertmanager(alertname: string, by: string): Promise<AmAlert> {
    let last: AmAlert[] = [];
    return waitFor(
      `${alertname} inhibited by ${by} in Alertmanager`,
      async () => {
        last = await a().alerts();
        const source = last.find((al) => al.labels.alertname === by && al.status.state === "active");
        const target = last.find((al) => al.labels.alertname === alertname && al.labels.account === ACCOUNT);
        return source !== undefined && target?.status.state === "suppressed" && target.status.inhibitedBy.includes(source.fingerprint) ? target : undefined;
      },
      DELIVERY_TIMEOUT_MS,
      () =>
        JSON.stringify(
          last.map((al) => [al.labels.alertname, al.status]),
          null,
          1,
        ),
    );
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startStack({ venue: { epochMs: Date.now(), tickMs: 250 }, env: { TRADING_MARKETS_CACHE_SECONDS: "1" } });
    am = await startAlertmanager(
      testAlertmanagerConfig(readFileSync(ALERTMANAGER_CONFIG, "utf8"), r().url, !SHIPPED_TIMINGS),
      join(ALERTMANAGER_DIR, "templates"),
    );
    const rulesFile = join(dir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8"), runbookBase(), !SHIPPED_TIMINGS));
    prom = await startPrometheus(new URL(s().server.url).host, { rulesFile, alertmanager: a().address, intervalSeconds: INTERVAL_SECONDS });
  }, STEP_TIMEOUT_MS * 2);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await am?.stop().catch((err: unknown) => console.error("stopping Alertmanager:", err));
    await stack?.close().catch((err: unknown) => console.error("closing the stack:", err));
    await receiver?.close().catch((err: unknown) => console.error("closing the receiver:", err));
    rmSync(dir, { recursive: true, force: true });
    if (steps.length > 0) {
      console.log(
        [
          SHIPPED_TIMINGS
            ? "delivery latency per step, from the scenario change (shipped timings, scrape and evaluation every 15 s):"
            : "delivery latency per step, from the scenario change (test timings: for = 2 s per shipped minute, group_wait and group_interval 1 s):",
        ]
          .concat(
            steps.map((st) => {
              if (st.note !== undefined) return `  ${st.step.padEnd(44)} ${st.note}`;
              const prom = st.toPrometheus === undefined ? "   -  " : `${(st.toPrometheus / 1000).toFixed(1)} s`;
              return `  ${st.step.padEnd(44)} Prometheus fired or resolved it at ${prom}, delivered to the webhook ${((st.toWebhook ?? NaN) / 1000).toFixed(1)} s`;
            }),
          )
          .join("\n"),
      );
    }
  }, 30_000);

  it("loads the shipped rules and Alertmanager config, changed only in timings, the runbook base and the webhook URL", () => {
    const shippedRules = readFileSync(RULES_FILE, "utf8");
    expect(normalized(testRules(shippedRules, runbookBase()))).toEqual(normalized(shippedRules));
    expect(testRules(shippedRules, runbookBase())).not.toBe(shippedRules);
    const shippedAm = readFileSync(ALERTMANAGER_CONFIG, "utf8");
    expect(normalized(testAlertmanagerConfig(shippedAm, r().url))).toEqual(normalized(shippedAm));
  });

  it(
    "wipeout: TradingMarginRatioCritical reaches the pager with words for zero total margin, no Inf, and TradingMarginRatioHigh inhibited",
    async () => {
      await scrapedOnce(p());
      const { alert, notification } = await step(
        "wipeout -> Critical delivered",
        () => s().venue.setScenario("wipeout"),
        "TradingMarginRatioCritical",
        "firing",
        isOurs,
      );
      expect(notification.receiver).toBe("trading-critical");
      expect(notification.path).toBe("/critical");
      expect(alert.annotations.summary).toBe(`Account ${ACCOUNT} (${COLLATERAL}) has no margin left: liquidation is imminent.`);
      expect(alert.annotations.description).toBe(
        `Total margin of account ${ACCOUNT} (${COLLATERAL}) is zero or negative while positions are open: liquidation is imminent.`,
      );
      expect(JSON.stringify(alert.annotations)).not.toMatch(UNREADABLE);
      expect(rendered(notification)).not.toMatch(UNREADABLE);
      await inhibitedInAlertmanager("TradingMarginRatioHigh", "TradingMarginRatioCritical");
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    "normal: the resolved notice is delivered and says it resolved, not the firing sentence",
    async () => {
      const { notification } = await step(
        "normal -> Critical resolved delivered",
        () => s().venue.setScenario("normal"),
        "TradingMarginRatioCritical",
        "resolved",
        isOurs,
      );
      expect(notification.receiver).toBe("trading-critical");
      const text = rendered(notification);
      // The group's title says RESOLVED once every alert in it has; a near-liquidation alert of the same
      // account may resolve one evaluation later on a loaded machine, and then the title still counts it.
      expect(text).toMatch(/^\[(RESOLVED|FIRING:\d+)\] account sim \(USDC\): .*TradingMarginRatioCritical/);
      expect(text).toContain("\nRESOLVED TradingMarginRatioCritical (critical");
      expect(text).toMatch(/No longer firing for account sim \(USDC\): resolved at \d\d:\d\d:\d\d UTC after \d/);
      expect(text).not.toContain("liquidation is imminent");
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    "liquidation: TradingMarginRatioCritical is delivered with routing labels, readable words and a runbook link that opens its page",
    async () => {
      const { alert, notification } = await step(
        "liquidation -> Critical delivered",
        () => s().venue.setScenario("liquidation"),
        "TradingMarginRatioCritical",
        "firing",
        isOurs,
      );
      expect(alert.labels).toEqual({
        alertname: "TradingMarginRatioCritical",
        severity: "critical",
        account: ACCOUNT,
        collateral_id: COLLATERAL,
      });
      expect(notification.groupLabels).toEqual({ account: ACCOUNT, collateral_id: COLLATERAL });
      expect(alert.annotations.description).toMatch(
        /^Maintenance margin of account sim \(USDC\) is 9\d(\.\d+)?% of its total margin \(critical above 90%, liquidation at 100%\)\.$/,
      );
      expect(JSON.stringify(alert.annotations)).not.toMatch(UNREADABLE);
      const text = rendered(notification);
      expect(text).toContain(alert.annotations.description!);
      expect(text).toContain(`Runbook: ${runbookBase()}TradingMarginRatioCritical`);

      // The link is absolute and opens a page about this alert.
      const link = alert.annotations.runbook_url ?? "";
      expect(link).toBe(`${runbookBase()}TradingMarginRatioCritical`);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("<h1>TradingMarginRatioCritical</h1>");
      expect(html).toContain("above 90% of the total margin");

      await inhibitedInAlertmanager("TradingMarginRatioHigh", "TradingMarginRatioCritical");
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    "one failed account_info collection during the breach: the alert keeps firing and no resolved reaches the webhook; a recovery resolves it",
    async () => {
      const marginSelector = `account="${ACCOUNT}",collateral_id="${COLLATERAL}"`;
      const firing = async () =>
        (await p().alerts()).find(
          (al) =>
            al.labels.alertname === "TradingMarginRatioCritical" &&
            al.labels.account === ACCOUNT &&
            al.labels.collateral_id === COLLATERAL &&
            al.state === "firing",
        );
      const before = await waitFor("TradingMarginRatioCritical firing in Prometheus", firing, DELIVERY_TIMEOUT_MS);

      // Every collateral's account_info read of the next collection answers invalid JSON (never retried): one
      // failed collection, then the venue answers again.
      const t0 = Date.now();
      s().venue.setFaults([{ endpoint: "account_info", kind: "malformed_json", times: s().config.accounts[0]?.collateralIds.length ?? fail("no account") }]);
      await waitFor("the failed collection was served", async () => (s().venue.faults().length === 0 ? true : undefined), DELIVERY_TIMEOUT_MS);
      const failedAt = Date.now() - t0;
      const since = () => `${Math.ceil((Date.now() - t0) / 1000) + INTERVAL_SECONDS}s`;
      await waitFor(
        "Prometheus scraped the failed collection, then the margin series again",
        async () =>
          (await p().series(`min_over_time(trading_scrape_success{endpoint="account_info",account="${ACCOUNT}"}[${since()}]) == 0`)).length === 1 &&
          (await p().series(`trading_scrape_success{endpoint="account_info",account="${ACCOUNT}"} == 1`)).length === 1 &&
          (await p().series(`trading_account_margin_ratio{${marginSelector}} > 0.9`)).length === 1
            ? true
            : undefined,
        DELIVERY_TIMEOUT_MS,
        () => p().logTail(),
      );
      const backAt = Date.now() - t0;
      // The gap is real: the margin series missed at least one of the scrapes since the fault.
      const window = since();
      const [margin] = await p().series(`count_over_time(trading_account_margin_ratio{${marginSelector}}[${window}])`);
      const [scrapes] = await p().series(`count_over_time(up{job="trading"}[${window}])`);
      expect(Number(margin?.value[1])).toBeLessThan(Number(scrapes?.value[1]));

      // Watch until Prometheus has evaluated the alert past the time it would have resolved had the data not
      // come back (the gap window after the failure), plus three intervals for Alertmanager to flush.
      const watchUntil = t0 + Math.max(failedAt, backAt) + GAP_WINDOW_MS + 3 * INTERVAL_SECONDS * 1000;
      await waitFor(
        "Prometheus evaluated TradingMarginRatioCritical past the gap window after the gap",
        async () => {
          const rule = (await p().ruleGroups()).flatMap((g) => g.rules).find((r) => r.name === "TradingMarginRatioCritical");
          return rule !== undefined && Date.parse(rule.lastEvaluation) >= watchUntil ? true : undefined;
        },
        DELIVERY_TIMEOUT_MS,
      );
      const watched = Date.now() - t0;
      // Still the same firing alert: a resolve would have restarted it as pending, with a new activeAt.
      const after = await firing();
      expect(after?.activeAt).toBe(before.activeAt);
      expect(delivered(t0, "TradingMarginRatioCritical", "resolved", isOurs)).toEqual([]);
      // Any notification of its group since (another alert of the group changing) carries it with its first start.
      const paged = delivered(0, "TradingMarginRatioCritical", "firing", isOurs)
        .filter((d) => d.notification.receivedAt < t0)
        .at(-1);
      expect(paged).toBeDefined();
      for (const d of delivered(t0, "TradingMarginRatioCritical", "firing", isOurs)) expect(d.alert.startsAt).toBe(paged?.alert.startsAt);
      steps.push({
        step: "1 failed account_info read -> no resolve",
        toPrometheus: undefined,
        toWebhook: undefined,
        note: `collection failed at ${(failedAt / 1000).toFixed(1)} s, series back in Prometheus at ${(backAt / 1000).toFixed(1)} s; still firing, nothing at the webhook through ${(watched / 1000).toFixed(1)} s`,
      });

      // A recovery still resolves, at the first evaluation that reads the value back under the threshold.
      await step("normal -> Critical resolved delivered", () => s().venue.setScenario("normal"), "TradingMarginRatioCritical", "resolved", isOurs);
    },
    STEP_TIMEOUT_MS * 3,
  );

  it(
    "halt: TradingMarketNotTradableWithPositions is delivered to the warning receiver with its routing labels",
    async () => {
      const halted = () => s().venue.info().haltedMarket;
      const { alert, notification } = await step(
        "halt -> market alert delivered",
        () => s().venue.setScenario("halt"),
        "TradingMarketNotTradableWithPositions",
        "firing",
      );
      expect(notification.receiver).toBe("trading-warning");
      expect(alert.labels).toMatchObject({
        severity: "warning",
        account: ACCOUNT,
        collateral_id: COLLATERAL,
        market_id: halted(),
        status: "CLOSE_ONLY",
      });
      // Without instance and job: the same alert whichever job scraped the series.
      expect(Object.keys(alert.labels).sort()).toEqual(["account", "alertname", "collateral_id", "direction", "market_id", "severity", "status"]);
      expect(alert.annotations.runbook_url).toBe(`${runbookBase()}TradingMarketNotTradableWithPositions`);
      expect(JSON.stringify(alert.annotations)).not.toMatch(UNREADABLE);
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    "exporter stopped: TradingExporterDown is delivered, and the alerts of the dead target are inhibited, their resolved notices too",
    async () => {
      const stoppedAt = Date.now();
      const { alert, notification } = await step("exporter stopped -> ExporterDown delivered", () => s().server.close(0), "TradingExporterDown", "firing");
      expect(notification.receiver).toBe("trading-critical");
      expect(alert.labels).toEqual({ alertname: "TradingExporterDown", severity: "critical", instance: new URL(s().server.url).host, job: "trading" });
      expect(alert.annotations.runbook_url).toBe(`${runbookBase()}TradingExporterDown`);
      // The market alert's series vanished with the exporter; its "resolved" must not reach the pager
      // before or with the page that says why (the group intervals here are 1 s, ExporterDown waits 4 s).
      expect(delivered(stoppedAt, "TradingMarketNotTradableWithPositions", "resolved")).toEqual([]);
      const amAlerts = await a().alerts();
      const missing = amAlerts.find(
        (al) => al.labels.alertname === "TradingDataMissing" && al.labels.endpoint === undefined && al.labels.instance !== undefined,
      );
      expect(missing?.status.state).toBe("active");
      // The account's alerts carry no instance: TradingDataMissing names the account whose series no target serves.
      await waitFor(
        "TradingDataMissing of the account active in Alertmanager",
        async () =>
          (await a().alerts()).find((al) => al.labels.alertname === "TradingDataMissing" && al.labels.account === ACCOUNT && al.labels.endpoint === undefined)
            ?.status.state === "active"
            ? true
            : undefined,
        DELIVERY_TIMEOUT_MS,
      );
      // Nothing about TradingDataMissing or TradingMarginRatioHigh ever reached a receiver.
      const all = r()
        .notifications()
        .flatMap((n) => n.alerts.map((al) => `${al.labels.alertname} ${al.status}`));
      expect(all.filter((x) => x.startsWith("TradingDataMissing") || x === "TradingMarginRatioHigh firing")).toEqual([]);
    },
    STEP_TIMEOUT_MS * 2,
  );
});
