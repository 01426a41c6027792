// A quiet venue pages nobody: the stand-alone simulator with its default flags, its exporter, and a real
// Prometheus on the shipped rules evaluating every second. The normal scenario leaves ALERTS empty; the
// liquidation scenario still raises the margin alerts.

import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { runCli } from "../tools/simulator/cli.js";
import type { RunningSimulator } from "../tools/simulator/server.js";
import { configFromObject } from "./helpers/config-files.js";
import { startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";

const ACCOUNTS = 3;
const TIMEOUT_MS = 25_000;
/** Collections each account must have had, one a second, before the quiet is judged: several rule evaluations. */
const COLLECTIONS = 6;

describe("the stand-alone simulator with default flags and the shipped rules", () => {
  let venue: RunningSimulator | undefined;
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let prom: RunningPrometheus | undefined;
  const p = (): RunningPrometheus => prom ?? fail("Prometheus did not start");
  function fail(message: string): never {
    throw new Error(message);
  }
  const count = async (expr: string): Promise<number> => Number((await p().series(expr))[0]?.value[1] ?? 0);

  beforeAll(async () => {
    const io = { out: (_l: string) => {}, err: (l: string) => console.error(l) };
    const sim = await runCli(["--port", "0", "--accounts", String(ACCOUNTS)], io);
    if (typeof sim === "number") throw new Error(`the simulator exited with ${sim}`);
    venue = sim;
    const port = new URL(sim.url).port;
    const printed: string[] = [];
    expect(await runCli(["--port", port, "--accounts", String(ACCOUNTS), "--print-exporter-config"], { out: (l) => printed.push(l), err: io.err })).toBe(0);
    // The printed config as it is; the exporter collects every second so counters move within the test.
    const config = configFromObject(
      parse(printed.join("\n")),
      { TRADING_LISTEN_ADDRESS: "127.0.0.1:0", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "1" },
      process.cwd(),
    );
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    service = await startService(config, createLogger("warn", quiet), { self: new SelfMetrics({ defaultMetrics: false }) });
    prom = await startPrometheus(new URL(service.server.url).host, { intervalSeconds: 1 });
  }, 30_000);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await service?.close(1000).catch((err: unknown) => console.error("closing the exporter:", err));
    await venue?.close();
  }, 30_000);

  it(
    "normal: no alert pending or firing after several evaluations of collections that moved",
    async () => {
      await waitFor(
        `${COLLECTIONS} collections of every account stored, all up`,
        async () =>
          (await count(`count(changes(trading_collection_timestamp_seconds[1m]) >= ${COLLECTIONS})`)) === ACCOUNTS &&
          (await count("count(trading_up == 1)")) === ACCOUNTS
            ? true
            : undefined,
        TIMEOUT_MS,
        () => p().logTail(),
      );
      // The venue traded meanwhile: orders came and went, so the rules judged moving data.
      expect(await count("sum(changes(trading_orders_total[1m]))")).toBeGreaterThan(0);
      const groups = await p().ruleGroups();
      expect(groups.flatMap((g) => g.rules).filter((r) => r.health !== "ok")).toEqual([]);
      // Any ALERTS series in the past minute, pending or firing, and any active alert now.
      const seen = await p().series("count by (alertname, alertstate) (count_over_time(ALERTS[1m]))");
      expect(seen.map((s) => s.metric)).toEqual([]);
      expect(await p().alerts()).toEqual([]);
    },
    TIMEOUT_MS + 5_000,
  );

  it(
    "liquidation: the margin alerts go pending or fire for the scenario's account",
    async () => {
      venue?.setScenario("liquidation");
      const margin = await waitFor(
        "TradingMarginRatioHigh and TradingMarginRatioCritical pending or firing",
        async () => {
          const names = new Set((await p().alerts()).map((a) => a.labels.alertname));
          return names.has("TradingMarginRatioHigh") && names.has("TradingMarginRatioCritical") ? [...names] : undefined;
        },
        TIMEOUT_MS,
        () => p().logTail(),
      );
      expect(margin).toEqual(expect.arrayContaining(["TradingMarginRatioHigh", "TradingMarginRatioCritical"]));
      const accounts = new Set((await p().alerts()).filter((a) => a.labels.alertname?.startsWith("TradingMarginRatio")).map((a) => a.labels.account));
      expect([...accounts]).toEqual(["sim-0001"]);
    },
    TIMEOUT_MS + 5_000,
  );
});
