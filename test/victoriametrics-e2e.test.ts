// The VictoriaMetrics path with real binaries: two exporters (each a share of one config's accounts) -> two vmagent cluster
// members (the shipped example scrape config) -> single-node VictoriaMetrics, each account stored once -> vmalert (the
// shipped rules) -> Alertmanager (the shipped config) -> the webhook receiver.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARKET_TARGET } from "../src/config/sharding.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { startReceiver, type RunningReceiver, type WebhookAlert } from "../tools/webhook/receiver.js";
import { normalized, SCRAPE_SCALE, testAlertmanagerConfig, testRules } from "./helpers/alerting-files.js";
import { startAlertmanager, type RunningAlertmanager } from "./helpers/alertmanager.js";
import { ALERTMANAGER_CONFIG, ALERTMANAGER_DIR } from "./helpers/amtool.js";
import { configFromObject } from "./helpers/config-files.js";
import { RULES_FILE, waitFor } from "./helpers/prometheus.js";
import { SIM_KEY } from "./helpers/stack.js";
import {
  startVictoriaMetrics,
  startVmagent,
  startVmalert,
  type RunningVictoriaMetrics,
  type RunningVmagent,
  type RunningVmalert,
} from "./helpers/victoriametrics.js";

const VMAGENT_EXAMPLE = fileURLToPath(new URL("../examples/victoriametrics/vmagent.yml", import.meta.url));
/** The example's exporter addresses, replaced by the test's. */
const EXAMPLE_SD_URLS = ["http://trading-exporter-0:9842/sd", "http://trading-exporter-1:9842/sd"];
const EXAMPLE_EXPORTERS = ["trading-exporter-0:9842", "trading-exporter-1:9842"];
/** Enough that both members get a share whatever the ports (vmagent hashes the target address too): all on one is 2 in 65,536. */
const ACCOUNTS = Array.from({ length: 16 }, (_, i) => `desk-${String(i + 1).padStart(2, "0")}`);
const MEMBERS = 2;
/** Scrape, discovery and evaluation every second (15 s shipped), as the alerting test does. */
const INTERVAL_SECONDS = 1;
const TIMEOUT_MS = 40_000;
/** The rules' gap window, `last_over_time(...[1m])` shipped, four scrapes: 4 s in the test copy. */
const GAP_WINDOW_MS = 60_000 / SCRAPE_SCALE;
/** Which vmagent member sent a sample: a label the test adds (-remoteWrite.label) so a series stored twice shows as two. */
const MEMBER_LABEL = "vmagent_member";

interface RunningExporter {
  /** Base URL, ending with a slash. */
  url: string;
  accounts: string[];
  logs: string[];
  close(): Promise<void>;
}

/**
 * The two exporters: `--shard=0` and `--shard=1` with `--total-shards=2` over one config, as the
 * sharded StatefulSet runs them. Every scrape collects, so one failed collection is one scrape's gap.
 */
async function startTwoShards(venueUrl: string, accounts: string[]): Promise<RunningExporter[]> {
  const config = {
    venue: { base_url: venueUrl, markets_cache_seconds: 1 },
    accounts: accounts.map((name) => ({ name, collateral_ids: ["USDC"], auth: { type: "api_key", key: SIM_KEY } })),
  };
  const shards: RunningExporter[] = [];
  try {
    for (const shard of [0, 1]) {
      const logs: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
          done();
        },
      });
      const env = {
        TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
        TRADING_SHARD: String(shard),
        TRADING_TOTAL_SHARDS: "2",
        TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0",
      };
      const service = await startService(configFromObject(config, env, process.cwd()), createLogger("warn", sink), {
        self: new SelfMetrics({ defaultMetrics: false }),
      });
      shards.push({ url: service.server.url, accounts: service.exporter.accountNames(), logs, close: () => service.close(1000) });
    }
    return shards;
  } catch (err) {
    await Promise.all(shards.map((s) => s.close()));
    throw err;
  }
}

/** The shipped vmagent example pointed at the test's exporters, every interval one second: nothing else changes. */
function testVmagentConfig(shipped: string, exporters: string[]): string {
  let text = shipped.replace(/^(\s+scrape_(?:interval|timeout): )\S+$/gm, `$1${INTERVAL_SECONDS}s`);
  EXAMPLE_SD_URLS.forEach((url, i) => {
    text = text.split(url).join(`http://${exporters[i]}/sd`);
  });
  EXAMPLE_EXPORTERS.forEach((address, i) => {
    text = text.split(address).join(exporters[i] ?? address);
  });
  return text;
}

describe("VictoriaMetrics end to end: vmagent cluster, VictoriaMetrics, vmalert with the shipped rules, Alertmanager", () => {
  const dir = mkdtempSync(join(tmpdir(), "te-vm-"));
  let venue: RunningSimulator | undefined;
  let exporters: RunningExporter[] = [];
  let receiver: RunningReceiver | undefined;
  let am: RunningAlertmanager | undefined;
  let vm: RunningVictoriaMetrics | undefined;
  let agents: RunningVmagent[] = [];
  let vmalert: RunningVmalert | undefined;

  function must<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`${what} did not start (see beforeAll)`);
    return value;
  }
  const runbookBase = () => `${must(exporters[0], "the first exporter").url}runbooks/`;
  const logs = () =>
    [
      `VictoriaMetrics:\n${vm?.logTail()}`,
      ...agents.map((a, i) => `vmagent ${i}:\n${a.logTail()}`),
      `vmalert:\n${vmalert?.logTail()}`,
      `Alertmanager:\n${am?.logTail()}`,
      ...exporters.map((e, i) => `exporter ${i}:\n${e.logs.slice(-10).join("\n")}`),
    ].join("\n");

  beforeAll(async () => {
    venue = await startSimulator({ seed: 7, tickMs: 250, apiKey: SIM_KEY, epochMs: Date.now() });
    exporters = await startTwoShards(venue.url, ACCOUNTS);
    receiver = await startReceiver();
    am = await startAlertmanager(testAlertmanagerConfig(readFileSync(ALERTMANAGER_CONFIG, "utf8"), receiver.url), join(ALERTMANAGER_DIR, "templates"));
    vm = await startVictoriaMetrics();
    const scrape = testVmagentConfig(
      readFileSync(VMAGENT_EXAMPLE, "utf8"),
      exporters.map((e) => new URL(e.url).host),
    );
    const v = vm;
    agents = await Promise.all(
      Array.from({ length: MEMBERS }, (_, member) =>
        startVmagent({
          config: scrape,
          remoteWrite: v.url,
          member,
          members: MEMBERS,
          labels: { [MEMBER_LABEL]: String(member) },
          sdCheckSeconds: INTERVAL_SECONDS,
        }),
      ),
    );
    const rulesFile = join(dir, "trading.rules.yml");
    writeFileSync(rulesFile, testRules(readFileSync(RULES_FILE, "utf8"), runbookBase()));
    vmalert = await startVmalert({ rulesFile, datasource: vm.url, notifier: am.url, evaluationSeconds: INTERVAL_SECONDS });
  }, 60_000);

  afterAll(async () => {
    const stops = [
      vmalert?.stop(),
      ...agents.map((a) => a.stop()),
      vm?.stop(),
      am?.stop(),
      receiver?.close(),
      ...exporters.map((e) => e.close()),
      venue?.close(),
    ];
    for (const stop of stops) await stop?.catch((err: unknown) => console.error("stopping:", err));
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("runs the shipped example scrape config and rules, changed only in addresses, timings and the runbook base", () => {
    const shippedScrape = readFileSync(VMAGENT_EXAMPLE, "utf8");
    for (const url of EXAMPLE_SD_URLS) expect(shippedScrape).toContain(url);
    const ours = testVmagentConfig(
      shippedScrape,
      exporters.map((e) => new URL(e.url).host),
    );
    const unaddressed = (text: string) =>
      text.replace(/^(\s+scrape_(?:interval|timeout): )\S+$/gm, "$1X").replace(/(127\.0\.0\.1|trading-exporter-\d):\d+/g, "HOST");
    expect(unaddressed(ours)).toBe(unaddressed(shippedScrape));
    const shippedRules = readFileSync(RULES_FILE, "utf8");
    expect(normalized(testRules(shippedRules, runbookBase()))).toEqual(normalized(shippedRules));
  });

  it(
    "the two vmagent members split the accounts: every account is scraped, by one member only, and each member has a share",
    async () => {
      const owners = await waitFor(
        "every account a target of a vmagent member, and up",
        async () => {
          const byMember = await Promise.all(agents.map(async (a) => (await a.activeTargets()).filter((t) => t.labels.job === "trading_probe")));
          const up = byMember.flat().filter((t) => t.health === "up");
          return new Set(up.map((t) => t.labels.instance)).size === ACCOUNTS.length + 1 ? byMember : undefined;
        },
        TIMEOUT_MS,
        logs,
      );
      // The venue's market list is one more target, of one exporter shard, scraped by one member.
      expect(owners.flat().filter((t) => t.labels.instance === MARKET_TARGET)).toHaveLength(1);
      const instances = owners.map((targets) =>
        targets
          .map((t) => t.labels.instance ?? "")
          .filter((i) => i !== MARKET_TARGET)
          .sort(),
      );
      expect(instances.flat().sort()).toEqual(ACCOUNTS);
      for (const share of instances) expect(share.length).toBeGreaterThan(0);
      console.log(`vmagent members' shares of the ${ACCOUNTS.length} account targets: ${instances.map((s) => s.length).join(" and ")}`);
    },
    TIMEOUT_MS + 5_000,
  );

  it(
    "VictoriaMetrics holds every account's series, each sent by one member only",
    async () => {
      const v = must(vm, "VictoriaMetrics");
      const accounts = await waitFor(
        "trading_up of every account in VictoriaMetrics",
        async () => {
          const found = (await v.series('trading_up{job="trading_probe"} == 1')).map((s) => s.metric.account ?? "");
          return new Set(found).size === ACCOUNTS.length ? found : undefined;
        },
        TIMEOUT_MS,
        logs,
      );
      expect([...new Set(accounts)].sort()).toEqual(ACCOUNTS);
      // Members per account, over every series of the account: a series stored by both would count 2.
      const members = await v.series(`count by (account) (count by (account, ${MEMBER_LABEL}) ({job="trading_probe", account!=""}))`);
      expect(Object.fromEntries(members.map((s) => [s.metric.account, s.value[1]]))).toEqual(Object.fromEntries(ACCOUNTS.map((a) => [a, "1"])));
      const perMember = await v.series(`count by (${MEMBER_LABEL}) (group by (account, ${MEMBER_LABEL}) ({job="trading_probe", account!=""}))`);
      expect(perMember.map((s) => s.metric[MEMBER_LABEL]).sort()).toEqual(["0", "1"]);
      // One trading_up per account: no duplicate under other labels either.
      const ups = await v.series('count by (account) (trading_up{job="trading_probe"})');
      for (const s of ups) expect(s.value[1], s.metric.account).toBe("1");
      // Each market once: the market target is one shard's, and no account's answer repeats the list.
      const markets = await v.series('count by (market_id) (trading_market_info{job="trading_probe"})');
      expect(markets.length).toBeGreaterThan(0);
      for (const s of markets) expect(s.value[1], s.metric.market_id).toBe("1");
    },
    TIMEOUT_MS + 5_000,
  );

  it(
    "liquidation: vmalert fires TradingMarginRatioCritical for every account and it reaches the webhook through the shipped Alertmanager config",
    async () => {
      const r = must(receiver, "the webhook receiver");
      const t0 = Date.now();
      must(venue, "the simulator").setScenario("liquidation");
      const isCritical = (al: WebhookAlert) => al.labels.alertname === "TradingMarginRatioCritical" && al.status === "firing";
      const delivered = await waitFor(
        "TradingMarginRatioCritical of every account delivered to the webhook",
        async () => {
          const got = r
            .notifications()
            .filter((n) => n.receivedAt >= t0)
            .flatMap((notification) => notification.alerts.filter(isCritical).map((alert) => ({ notification, alert })));
          return new Set(got.map((d) => d.alert.labels.account)).size === ACCOUNTS.length ? got : undefined;
        },
        TIMEOUT_MS,
        logs,
      );
      const deliveredAfter = Math.max(...delivered.map((d) => d.notification.receivedAt)) - t0;
      const { alert, notification } = delivered[0] ?? { alert: undefined, notification: undefined };
      expect(notification?.receiver).toBe("trading-critical");
      expect(notification?.path).toBe("/critical");
      const account = alert?.labels.account ?? "";
      expect(alert?.labels).toMatchObject({
        alertname: "TradingMarginRatioCritical",
        severity: "critical",
        account,
        collateral_id: "USDC",
      });
      // Once per account, whichever job and member scraped it: no instance or job on the alert.
      expect(Object.keys(alert?.labels ?? {}).filter((l) => l === "instance" || l === "job")).toEqual([]);
      expect(alert?.annotations.description).toMatch(
        new RegExp(
          `^Maintenance margin of account ${account} \\(USDC\\) is 9\\d(\\.\\d+)?% of its total margin \\(critical above 90%, liquidation at 100%\\)\\.$`,
        ),
      );
      // The link comes from the recording rule vmalert wrote to VictoriaMetrics and read back.
      expect(alert?.annotations.runbook_url).toBe(`${runbookBase()}TradingMarginRatioCritical`);
      const firing = (await must(vmalert, "vmalert").alerts()).filter((al) => al.name === "TradingMarginRatioCritical" && al.state === "firing");
      expect(new Set(firing.map((al) => al.labels.account)).size).toBe(ACCOUNTS.length);
      console.log(`liquidation -> TradingMarginRatioCritical of all ${ACCOUNTS.length} accounts at the webhook: ${(deliveredAfter / 1000).toFixed(1)} s`);
    },
    TIMEOUT_MS + 5_000,
  );

  it(
    "one failed account_info collection of every account during the breach: vmalert keeps the alerts firing through the gap, and no resolved reaches the webhook",
    async () => {
      const v = must(vm, "VictoriaMetrics");
      const va = must(vmalert, "vmalert");
      const sim = must(venue, "the simulator");
      const r = must(receiver, "the webhook receiver");
      const firing = async () => (await va.alerts()).filter((al) => al.name === "TradingMarginRatioCritical" && al.state === "firing");
      const before = new Map((await firing()).map((al) => [al.labels.account, al.activeAt]));
      expect(before.size).toBe(ACCOUNTS.length);

      // The next account_info read of each account answers invalid JSON (never retried): one failed collection each.
      const t0 = Date.now();
      sim.setFaults([{ endpoint: "account_info", kind: "malformed_json", times: ACCOUNTS.length }]);
      await waitFor("the failed collections were served", async () => (sim.faults().length === 0 ? true : undefined), TIMEOUT_MS);
      const failedAt = Date.now() - t0;
      const since = () => `${Math.ceil((Date.now() - t0) / 1000) + INTERVAL_SECONDS}s`;
      await waitFor(
        "VictoriaMetrics stored the failed collections, then every margin series again",
        async () =>
          (await v.series(`min_over_time(trading_scrape_success{endpoint="account_info",job="trading_probe"}[${since()}]) == 0`)).length > 0 &&
          (await v.series('trading_account_margin_ratio{job="trading_probe"} > 0.9')).length === ACCOUNTS.length
            ? true
            : undefined,
        TIMEOUT_MS,
        logs,
      );
      const backAt = Date.now() - t0;
      // The gap is real: margin series missed scrapes that trading_up of the same account did not.
      const window = since();
      const gaps = await v.series(
        `count_over_time(trading_account_margin_ratio{job="trading_probe"}[${window}]) < on (account) count_over_time(trading_up{job="trading_probe"}[${window}])`,
      );
      expect(gaps.length).toBeGreaterThan(0);

      // Watch until vmalert has evaluated past the time the alerts would have resolved had the data not come back, plus
      // three intervals for Alertmanager to flush.
      const watchUntil = t0 + Math.max(failedAt, backAt) + GAP_WINDOW_MS + 3 * INTERVAL_SECONDS * 1000;
      await waitFor(
        "vmalert evaluated TradingMarginRatioCritical past the gap window after the gap",
        async () => {
          const rule = (await va.rules()).find((ru) => ru.name === "TradingMarginRatioCritical");
          return rule !== undefined && Date.parse(rule.lastEvaluation) >= watchUntil ? true : undefined;
        },
        TIMEOUT_MS,
        logs,
      );
      // The same firing alerts: a resolve would have restarted them as pending, with a new activeAt.
      const after = new Map((await firing()).map((al) => [al.labels.account, al.activeAt]));
      expect(after).toEqual(before);
      const resolved = r
        .notifications()
        .filter((n) => n.receivedAt >= t0)
        .flatMap((n) => n.alerts)
        .filter((al) => al.labels.alertname === "TradingMarginRatioCritical" && al.status === "resolved");
      expect(resolved).toEqual([]);
      console.log(
        `one failed account_info read per account: ${gaps.length} margin series with a gap, data back at ${(backAt / 1000).toFixed(1)} s, all ${ACCOUNTS.length} alerts still firing through ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    },
    TIMEOUT_MS * 2,
  );
});
