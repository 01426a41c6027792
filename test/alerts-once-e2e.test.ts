// A desk as issue 29 tried it: 12 accounts on a venue of 300 markets, a real Prometheus running both shipped example
// configs' jobs at once (/metrics, /probe via /sd, the exporter's own series), only addresses and intervals changed.
// Each alert fires once per account; increase() sees a first invalid field; empty rejection codes add nothing.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { deskAccountKey, deskAccountName } from "../tools/simulator/desk.js";
import { testRules } from "./helpers/alerting-files.js";
import { RULES_FILE, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

const PROMETHEUS_DIR = fileURLToPath(new URL("../prometheus/", import.meta.url));
const EXAMPLES = ["prometheus.example.yml", "prometheus.probe.example.yml"];
const ACCOUNTS = 12;
const MARKETS = 300;
const TIMEOUT_MS = 90_000;
/** The labels that tell two alerts of one name apart once instance and job are dropped. */
const IDENTITY = "alertname, account, collateral_id, market_id, direction, endpoint, code, status";

/** A shipped example with the exporter's address, every interval 1 s and the test's rule file: nothing else changes. */
function testExample(text: string, exporter: string, rulesFile: string): Record<string, unknown> {
  const changed = text
    .split("localhost:9842")
    .join(exporter)
    .replace(/^(\s+(?:scrape_interval|evaluation_interval|scrape_timeout|refresh_interval): )\S+$/gm, "$11s")
    .replace("rules/trading.rules.yml", rulesFile);
  const config = parse(changed) as Record<string, unknown>;
  // No Alertmanager here: the test reads the alerts from Prometheus.
  delete config.alerting;
  return config;
}

describe("alerts once per account, counters that count: a real Prometheus with both example configs' jobs", () => {
  const dir = mkdtempSync(join(tmpdir(), "te-once-"));
  let stack: Stack | undefined;
  let prom: RunningPrometheus | undefined;
  const s = (): Stack => stack ?? fail("the stack did not start");
  const p = (): RunningPrometheus => prom ?? fail("Prometheus did not start");
  function fail(message: string): never {
    throw new Error(message);
  }
  const count = async (expr: string): Promise<number> => Number((await p().series(expr))[0]?.value[1] ?? 0);

  beforeAll(async () => {
    stack = await startStack({
      // Every order the venue did not reject carries rejectionReason {code: "", message: ""}.
      venue: {
        accounts: ACCOUNTS,
        markets: MARKETS,
        epochMs: Date.now(),
        tickMs: 250,
        faults: [
          { endpoint: "orders_history", kind: "empty_rejections" },
          { endpoint: "orders_active", kind: "empty_rejections" },
        ],
      },
      file: (url) => ({
        venue: { base_url: url },
        accounts: Array.from({ length: ACCOUNTS }, (_, i) => ({
          name: deskAccountName(i, ACCOUNTS),
          collateral_ids: ["USDC", "USDT"],
          auth: { type: "api_key", key: deskAccountKey(SIM_KEY, i, ACCOUNTS) },
        })),
      }),
      env: { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "1" },
      logLevel: "warn",
    });
    const rulesFile = join(dir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8"), `${s().server.url}runbooks/`));
    const host = new URL(s().server.url).host;
    const [metrics = {}, probe = {}] = EXAMPLES.map((f) => testExample(readFileSync(join(PROMETHEUS_DIR, f), "utf8"), host, rulesFile));
    // Both files' jobs side by side: every account series stored twice, the exporter's own series twice.
    const config = { ...metrics, scrape_configs: [...(metrics.scrape_configs as unknown[]), ...(probe.scrape_configs as unknown[])] };
    prom = await startPrometheus(host, { config: JSON.stringify(config) });
    await waitFor(
      "every target of the three jobs up: /metrics twice, 12 accounts and the market list on /probe",
      async () => ((await count('count(up{job=~"trading.*"} == 1)')) === 3 + ACCOUNTS ? true : undefined),
      TIMEOUT_MS,
      () => p().logTail(),
    );
  }, TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await stack?.close().catch((err: unknown) => console.error("closing the stack:", err));
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it(
    "liquidation: every alert fires once per account and position, though every series is stored twice",
    async () => {
      s().venue.setScenario("liquidation");
      const first = deskAccountName(0, ACCOUNTS);
      await waitFor(
        "TradingMarginRatioCritical and TradingPositionNearLiquidation firing for the first account",
        async () =>
          (await count(`count(ALERTS{alertstate="firing",alertname="TradingMarginRatioCritical",account="${first}"})`)) > 0 &&
          (await count(`count(ALERTS{alertstate="firing",alertname="TradingPositionNearLiquidation",account="${first}"})`)) > 0
            ? true
            : undefined,
        TIMEOUT_MS,
        () => p().logTail(),
      );
      // The doubling is real: each account's margin series comes from two jobs.
      await waitFor(
        "every account's margin series stored by both jobs",
        async () =>
          (await count("count(count by (account) (trading_account_margin_ratio))")) === ACCOUNTS &&
          (await count("count(count by (account, collateral_id) (trading_account_margin_ratio) != 2) or vector(0)")) === 0
            ? true
            : undefined,
        TIMEOUT_MS,
      );
      const firing = await p().series(`count by (alertname) (ALERTS{alertstate="firing"})`);
      const doubled = await p().series(`count by (${IDENTITY}) (ALERTS) > 1`);
      expect(doubled.map((d) => d.metric)).toEqual([]);
      // No alert about an account names a target.
      expect((await p().series('ALERTS{account!="",instance!=""} or ALERTS{account!="",job!=""}')).map((a) => a.metric)).toEqual([]);
      console.log(
        `alerts firing with ${ACCOUNTS} accounts, ${MARKETS} markets, jobs trading + trading_probe + trading_exporter: ${firing
          .map((f) => `${f.metric.alertname} ${f.value[1]}`)
          .join(", ")}; none twice`,
      );
    },
    TIMEOUT_MS + 10_000,
  );

  it(
    "orders whose rejection code is empty add nothing: no invalid field, no rejection",
    async () => {
      const answer = await fetch(new URL("v1/private/orders/history?limit=100", s().venue.url.endsWith("/") ? s().venue.url : `${s().venue.url}/`), {
        headers: { "X-Api-Key": deskAccountKey(SIM_KEY, 0, ACCOUNTS) },
      });
      const history = (await answer.json()) as Array<{ rejectionReason?: { code: string } }>;
      expect(history.filter((o) => o.rejectionReason?.code === "").length).toBeGreaterThan(0);
      expect(await count('sum(trading_exporter_invalid_fields_total{field="rejectionReason.code"})')).toBe(0);
      // The history gauge counts exactly the REJECTED orders, and no counter has an empty code.
      const rejections = await count("sum(trading_order_history_rejections)");
      expect(rejections).toBeGreaterThan(0);
      const disagree = await p().series(
        'sum by (job, instance) (trading_order_history_rejections) != sum by (job, instance) (trading_order_history_orders{status="REJECTED"})',
      );
      expect(disagree.map((d) => d.metric)).toEqual([]);
      expect(await count('count(trading_order_rejections_total{code=""}) or vector(0)')).toBe(0);
      console.log(`empty rejection codes: 0 invalid fields, the history's rejections are its REJECTED orders and no more`);
    },
    TIMEOUT_MS,
  );

  it(
    "a first invalid field is seen by increase(): every known field was stored at 0 before it",
    async () => {
      const selector = 'trading_exporter_invalid_fields_total{job="trading",endpoint="orders_active"}';
      expect(await count(`count(${selector})`)).toBeGreaterThan(10);
      expect(await count(`count(${selector} > 0) or vector(0)`)).toBe(0);
      // The active orders with every field of the wrong type, until a collection has read them (one under
      // load may end at the scrape deadline instead, reading nothing).
      s().venue.setFaults([
        { endpoint: "orders_history", kind: "empty_rejections" },
        { endpoint: "orders_active", kind: "wrong_types" },
      ]);
      const seen = await waitFor(
        "increase() of the invalid-fields counter above 0",
        async () => {
          const n = await count(`sum(increase(${selector}[30s]))`);
          return n > 0 ? n : undefined;
        },
        TIMEOUT_MS,
        () => p().logTail(),
      );
      s().venue.setFaults([{ endpoint: "orders_history", kind: "empty_rejections" }]);
      expect(seen).toBeGreaterThan(0);
      console.log(`first invalid fields: increase() over 30 s shows ${seen.toFixed(1)}`);
    },
    TIMEOUT_MS + 10_000,
  );
});
