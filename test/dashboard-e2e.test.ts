// Every panel query of both dashboards, variables at their defaults, against a real Prometheus scraping a desk of
// 12 accounts on a venue of 300 markets (the first account in the liquidation scenario), in both deployments:
// the `trading` job on /metrics, and /probe through /sd beside the exporter's own `trading_exporter` job.
// Each query must answer without error and with data, and no graph may draw more than 50 series.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../tools/simulator/config.js";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { testRules } from "./helpers/alerting-files.js";
import { allPanels, dashboardQueries, defaultVariables, loadDashboards } from "./helpers/dashboard-queries.js";
import { RULES_FILE, startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

const ACCOUNTS = 12;
const MARKETS = 300;
const MAX_GRAPH_SERIES = 50;
/** Graphs are judged over this much of their range (the whole of the test's data), at Grafana's step for 1 s scrapes. */
const RANGE_SECONDS = 60;
/** Grafana's $__rate_interval for a 1 s scrape interval: four intervals, at least 4 s; a little more so two samples always fit. */
const RATE_INTERVAL = "5s";
const GRAPHS = new Set(["timeseries", "state-timeline"]);

type Deployment = "metrics" | "probe";

function prometheusJobs(deployment: Deployment, address: string): { metricsJob: boolean; jobs: unknown[] } {
  if (deployment === "metrics") return { metricsJob: true, jobs: [] };
  // As docs/deployment.md describes: /probe per target found on /sd, and the exporter's own series from /exporter-metrics.
  return {
    metricsJob: false,
    jobs: [
      { job_name: "trading_probe", scrape_interval: "1s", scrape_timeout: "1s", http_sd_configs: [{ url: `http://${address}/sd`, refresh_interval: "2s" }] },
      {
        job_name: "trading_exporter",
        scrape_interval: "1s",
        scrape_timeout: "1s",
        metrics_path: "/exporter-metrics",
        static_configs: [{ targets: [address] }],
      },
    ],
  };
}

for (const deployment of ["metrics", "probe"] as const) {
  describe(`dashboards against a real Prometheus, ${ACCOUNTS} accounts and ${MARKETS} markets, ${deployment === "metrics" ? "job trading on /metrics" : "/probe via /sd plus the trading_exporter job"}`, () => {
    let stack: Stack | undefined;
    let prom: RunningPrometheus | undefined;
    let dir: string | undefined;
    const p = (): RunningPrometheus =>
      prom ??
      (() => {
        throw new Error("Prometheus did not start (see beforeAll)");
      })();

    beforeAll(async () => {
      const venue = { accounts: ACCOUNTS, markets: MARKETS, epochMs: Date.now(), tickMs: 500, apiKey: SIM_KEY };
      stack = await startStack({
        venue,
        file: (url) => parse(exporterConfigYaml(resolveConfig(venue), url)),
        env: { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "1" },
        defaultMetrics: true,
        logLevel: "warn",
      });
      stack.venue.setScenario("liquidation");
      dir = mkdtempSync(join(tmpdir(), "te-dashboard-e2e-"));
      const rulesFile = join(dir, "trading.rules.yml");
      writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8")));
      const address = new URL(stack.server.url).host;
      prom = await startPrometheus(address, { rulesFile, ...prometheusJobs(deployment, address) });
    }, 60_000);

    afterAll(async () => {
      await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
      await stack?.close().catch((err: unknown) => console.error("closing the stack:", err));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it("answers every panel query at the variables' defaults with data, and no graph draws more than 50 series", async () => {
      const expectedTargets = deployment === "metrics" ? 1 : ACCOUNTS + 2;
      await waitFor(
        `${expectedTargets} targets up`,
        async () => ((await p().series('up{job=~"trading.*"} == 1')).length === expectedTargets ? true : undefined),
        60_000,
        () => p().logTail(),
      );

      const dashboards = loadDashboards();
      const figures: string[] = [];
      let problems: string[] = [];
      let maxGraphSeries = 0;
      let queryCount = 0;
      await waitFor(
        "every panel query with data",
        async () => {
          problems = [];
          maxGraphSeries = 0;
          queryCount = 0;
          figures.length = 0;
          for (const { file, dashboard } of dashboards) {
            const vars = await defaultVariables(dashboard, (selector, label) => p().labelValues(selector, label));
            const queries = dashboardQueries(dashboard, { ...vars, __rate_interval: RATE_INTERVAL });
            let fileMax = 0;
            let widest = "";
            let returned = 0;
            for (const q of queries) {
              queryCount++;
              const where = `${file} panel "${q.panel}"`;
              const answer = await p().query(q.expr);
              if (answer.status !== "success" || answer.data === undefined) {
                problems.push(`${where}: ${answer.errorType}: ${answer.error}\n  ${q.expr}`);
                continue;
              }
              returned += answer.data.result.length;
              if (answer.data.result.length === 0) problems.push(`${where} returned no series:\n  ${q.expr}`);
              // The first account is in the liquidation scenario: its margin alerts fire (the test rules' fors are seconds).
              if (q.panel === "Alerts firing" && !answer.data.result.some((r) => Number(r.value[1]) > 0)) problems.push(`${where}: no alert firing yet`);
              if (!GRAPHS.has(q.type)) continue;
              const range = await p().queryRange(q.expr, RANGE_SECONDS, 1);
              if (range.status !== "success" || range.data === undefined) {
                problems.push(`${where} (range): ${range.errorType}: ${range.error}\n  ${q.expr}`);
                continue;
              }
              const drawn = range.data.result.length;
              if (drawn > fileMax) widest = q.panel;
              fileMax = Math.max(fileMax, drawn);
              if (drawn > MAX_GRAPH_SERIES) problems.push(`${where} draws ${drawn} series over ${RANGE_SECONDS} s:\n  ${q.expr}`);
            }
            maxGraphSeries = Math.max(maxGraphSeries, fileMax);
            figures.push(
              `${file}: ${queries.length} queries returning ${returned} series, at most ${fileMax} series on a graph ("${widest}"; account ${vars.account?.slice(0, 40)})`,
            );
          }
          return problems.length === 0 ? true : undefined;
        },
        90_000,
        () => problems.join("\n"),
      );
      console.log(`dashboards, ${deployment} deployment: ${queryCount} queries, every one with data; ${figures.join("; ")}`);
      expect(problems).toEqual([]);
      expect(maxGraphSeries).toBeLessThanOrEqual(MAX_GRAPH_SERIES);
      expect(maxGraphSeries).toBeGreaterThan(1);
    }, 180_000);

    it(`Market status draws the markets the account holds, not the venue's ${MARKETS}, even with $market_id matching every market`, async () => {
      const found = loadDashboards().find(({ dashboard }) => allPanels(dashboard).some((panel) => panel.title === "Market status"));
      if (found === undefined) throw new Error("no dashboard has a Market status panel");
      const vars = await waitFor(
        "the variables' values",
        () => defaultVariables(found.dashboard, (selector, label) => p().labelValues(selector, label)),
        60_000,
      );
      // Grafana's All may be sent as a wildcard (a custom all value, or a variable that found no market yet).
      const queries = dashboardQueries(found.dashboard, { ...vars, market_id: ".*", __rate_interval: RATE_INTERVAL }).filter(
        (q) => q.panel === "Market status",
      );
      expect(queries.length).toBeGreaterThan(0);
      const heldSelector = `trading_position_size{account="${vars.account}", collateral_id="${vars.collateral_id}"}`;
      const held = await waitFor(
        "the account's positions and the market list stored",
        async () => {
          const markets = await p().labelValues(heldSelector, "market_id");
          return markets.length > 0 && (await p().series("count(trading_market_status)")).length > 0 ? markets : undefined;
        },
        60_000,
      );
      expect(held.length).toBeLessThan(MAX_GRAPH_SERIES);
      for (const q of queries) {
        const range = await p().queryRange(q.expr, RANGE_SECONDS, 1);
        expect(range.status, q.expr).toBe("success");
        const drawn = (range.data?.result ?? []).map((r) => r.metric.market_id ?? "");
        expect(drawn.length).toBeGreaterThan(0);
        expect(drawn.length).toBeLessThanOrEqual(MAX_GRAPH_SERIES);
        expect(drawn.filter((m) => !held.includes(m))).toEqual([]);
      }
    }, 60_000);
  });
}
