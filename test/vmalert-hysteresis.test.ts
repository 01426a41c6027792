// vmalert evaluating the shipped liquidation-distance hysteresis for real, at the account's own threshold: a distance
// wavering inside the band (up to 1.2 x the threshold) neither resolves nor re-fires.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULES_FILE, waitFor } from "./helpers/prometheus.js";
import { startVictoriaMetrics, startVmalert, type RunningVictoriaMetrics, type RunningVmalert, type VmAlert } from "./helpers/victoriametrics.js";

const SERIES =
  'trading_position_liquidation_distance_ratio{job="trading",instance="venue-a",account="frank",collateral_id="USDC",market_id="BTC-USD",direction="LONG"}';
/** frank's own critical threshold, 0.1 (the default is 0.05): the tier fires below 10 % and resolves at 12 %. */
const THRESHOLD = 'trading_account_alert_threshold{job="trading",instance="venue-a",account="frank",threshold="liquidation_distance_critical"} 0.1';
/** Evaluations to watch in each band: more than vmalert's remote-write flush (5 s) and VictoriaMetrics' latency offset (1 s here). */
const EVALUATIONS = 10;

describe("vmalert keeps the liquidation-distance hysteresis of the shipped rules", () => {
  let vm: RunningVictoriaMetrics | undefined;
  let vmalert: RunningVmalert | undefined;
  let notifier: Server | undefined;
  let distance = 0.09;
  let feeding: NodeJS.Timeout | undefined;

  async function push(): Promise<void> {
    await fetch(`${vm!.url}/api/v1/import/prometheus`, { method: "POST", body: `${SERIES} ${distance} ${Date.now()}\n${THRESHOLD} ${Date.now()}\n` });
  }

  beforeAll(async () => {
    vm = await startVictoriaMetrics();
    // No Alertmanager: the test reads vmalert's own alert state, and this sink takes the notifications.
    const sink = createServer((_req, res) => res.end());
    notifier = sink;
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    const { port } = sink.address() as AddressInfo;
    vmalert = await startVmalert({ rulesFile: RULES_FILE, datasource: vm.url, notifier: `http://127.0.0.1:${port}`, evaluationSeconds: 1 });
    await push();
    // A scrape every 250 ms, as a fast Prometheus would write it.
    feeding = setInterval(() => void push().catch(() => undefined), 250);
  }, 60_000);

  afterAll(async () => {
    clearInterval(feeding);
    await Promise.all([vmalert?.stop(), vm?.stop()]);
    await new Promise((resolve) => (notifier === undefined ? resolve(undefined) : notifier.close(resolve)));
  });

  const near = async (): Promise<VmAlert | undefined> => (await vmalert!.alerts()).find((a) => a.name === "TradingPositionNearLiquidation");

  /** Watches EVALUATIONS evaluations of the group, returning what `observe` saw after each. */
  async function watch<T>(observe: () => Promise<T>): Promise<T[]> {
    const seen: T[] = [];
    let last = "";
    while (seen.length < EVALUATIONS) {
      const evaluated = await waitFor(
        "the next vmalert evaluation",
        async () => {
          const rule = (await vmalert!.rules()).find((r) => r.name === "TradingPositionNearLiquidation");
          return rule !== undefined && rule.lastEvaluation !== last ? rule.lastEvaluation : undefined;
        },
        10_000,
        () => vmalert!.logTail(),
      );
      last = evaluated;
      seen.push(await observe());
    }
    return seen;
  }

  it("goes active below frank's 10%, stays active (same activeAt) at 11%, resolves at 12.5%, and stays resolved at 11.5%", async () => {
    const first = await waitFor("TradingPositionNearLiquidation active at 9%", near, 30_000, () => vmalert!.logTail());
    distance = 0.11;
    const inside = await watch(async () => (await near())?.activeAt);
    expect(inside, "inside the band: never resolved, never a new activeAt").toEqual(inside.map(() => first.activeAt));
    distance = 0.125;
    await waitFor(
      "TradingPositionNearLiquidation resolved at 12.5%",
      async () => ((await near()) === undefined ? true : undefined),
      30_000,
      () => vmalert!.logTail(),
    );
    distance = 0.115;
    const after = await watch(async () => (await near())?.state ?? "resolved");
    expect(after, "back inside the band from above: stays resolved").toEqual(after.map(() => "resolved"));
  }, 120_000);
});
