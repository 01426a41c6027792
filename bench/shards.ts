// `npm run bench:shards`: one simulated venue, BENCH_SHARDS (2) exporter replicas of one config of BENCH_ACCOUNTS (2,000)
// accounts, each serving its shard (--shard=I --total-shards=S) as a desk runs it: the minimum collection interval equal to
// the scrape interval, every limit at its default. Every target of every
// shard's /sd is probed once per BENCH_INTERVAL_SECONDS (15) for BENCH_INTERVALS (4), as Prometheus with the shipped probe
// config would. Prints per shard and in total the targets up, CPU, memory, 503s and errors, and the venue's requests
// against the one collection per account and interval allowed. BENCH_BASE=DIR (another build's dist folder, e.g. the commit
// before a change) runs that build's replicas the same way after this one's, on a fresh simulator, and prints both side
// by side. BENCH_VENUE_LATENCY_MS, a comma-separated list (default 0,150,300), holds every venue answer that long: one fleet
// per latency, one table of them all at the end. Prints numbers; a benchmark, not a test. Every process it starts is stopped after its run, on an error and on Ctrl-C.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { childrenOf, cpuMs, percentile, rssMB } from "./measure.js";
import { agent, type Answer, answerText, discover, type IntervalFigures, pause, probeRounds, SCRAPE_TIMEOUT_SECONDS } from "./prometheus-probes.js";
import { latencyOf, positiveInteger, round1, round2, table, venueLatencies } from "./shared.js";
import { deskSimulatorArgs, type SimulatorProcess, startSimulatorProcess } from "./simulator-process.js";

const KEY = "shards-key";

/** What the run under way started, stopped in reverse order once, whichever way it ends. */
const started: Array<() => Promise<void>> = [];
async function stopStarted(): Promise<void> {
  for (const stop of started.splice(0).reverse()) await stop().catch(() => undefined);
}

/**
 * Ends every child left (one still starting, or one a finished run is stopping, is no longer in `started`) and waits
 * up to 5 s for them to exit, then kills any still there: none outlives the benchmark.
 */
async function endChildren(): Promise<void> {
  const alive = () => childrenOf(process.pid);
  for (const pid of alive()) process.kill(pid, "SIGTERM");
  for (let waited = 0; waited < 5000 && alive().length > 0; waited += 50) await pause(50);
  for (const pid of alive()) process.kill(pid, "SIGKILL");
}
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`${signal}: stopping the replicas and the simulator`);
    void stopStarted()
      .then(() => endChildren())
      .then(() => process.exit(130));
  });
}

interface Shard {
  exporter: ExporterProcess;
  targets: Array<{ name: string; url: URL }>;
  figures: IntervalFigures[];
  peakRss: number;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** When the collection an account's answer comes from started (trading_collection_timestamp_seconds), in ms; undefined for others. */
function collectedAt(answer: Answer): number | undefined {
  if (answer.status !== 200) return undefined;
  const match = /^trading_collection_timestamp_seconds\{[^}]*\} (\S+)$/m.exec(answerText(answer));
  return match === null ? undefined : Number(match[1]) * 1000;
}

/** Per account target: the collections its answers came from, by interval, and the oldest served after the first interval. */
class Collections {
  readonly #first = new Map<string, number>();
  readonly #renewed = new Set<string>();
  oldestServedMs = 0;

  record(target: { name: string }, interval: number, answer: Answer): void {
    const at = collectedAt(answer);
    if (at === undefined) return;
    if (interval === 0) this.#first.set(target.name, Math.max(at, this.#first.get(target.name) ?? 0));
    else {
      if (at > (this.#first.get(target.name) ?? 0)) this.#renewed.add(target.name);
      this.oldestServedMs = Math.max(this.oldestServedMs, Date.now() - at);
    }
  }

  /** Accounts collected again after the first interval. */
  get renewed(): number {
    return this.#renewed.size;
  }
}

interface Run {
  accounts: number;
  shardCount: number;
  intervalSeconds: number;
  intervals: number;
  /** The venue's latency, ms. */
  latencyMs: number;
}

/** A fleet's run in one line, to set beside another build's. */
interface Outcome {
  everyUp: boolean;
  unavailable: number;
  errors: number;
  p99Ms: number;
  busiestCores: number;
  collected: string;
}

/** One fleet of `main`'s replicas (undefined: this build's) against a fresh simulator: prints its tables, stops what it started. */
async function runFleet(run: Run, main: string | undefined): Promise<Outcome> {
  const { accounts, shardCount, intervalSeconds, intervals, latencyMs } = run;
  const intervalMs = intervalSeconds * 1000;
  const timeoutSeconds = Math.min(SCRAPE_TIMEOUT_SECONDS, intervalSeconds);
  const venue: SimulatorProcess = await startSimulatorProcess(deskSimulatorArgs(accounts, KEY, latencyMs));
  started.push(() => venue.close());
  const dir = mkdtempSync(join(tmpdir(), "bench-shards-"));
  started.push(async () => rmSync(dir, { recursive: true, force: true }));
  const configFile = join(dir, "trading-exporter.yml");
  const collaterals = [{ id: "USDC", shape: "detailed" as const }];
  writeFileSync(configFile, exporterConfigYaml({ accounts, apiKey: KEY, apiKeyHeader: "X-Api-Key", collaterals }, venue.url.replace(/\/$/, "")));

  const exporters = await Promise.all(
    Array.from({ length: shardCount }, async (_, shard) => {
      const env = {
        TRADING_CONFIG_FILE: configFile,
        TRADING_LOG_LEVEL: "info",
        TRADING_SHARD: String(shard),
        TRADING_TOTAL_SHARDS: String(shardCount),
        TRADING_MIN_COLLECTION_INTERVAL_SECONDS: String(intervalSeconds),
      };
      const exporter = await startExporterProcess(env, [], ...(main === undefined ? [] : [main]));
      started.push(() => exporter.close());
      return exporter;
    }),
  );
  const shards: Shard[] = await Promise.all(exporters.map(async (exporter) => ({ exporter, targets: await discover(exporter), figures: [], peakRss: 0 })));
  console.error(`probing ${shards.map((s) => s.targets.length).join(" + ")} targets of ${shardCount} replicas`);
  // What the replicas run, as their command lines say: the base's, when BENCH_BASE names one.
  const commands = exporters.map((e) => readFileSync(`/proc/${e.pid}/cmdline`, "utf8").split("\0"));
  console.log(`replicas: ${[...new Set(commands.map((argv) => argv.find((arg) => arg.endsWith("main.js"))))].join(", ")}`);

  let venuePeakRss = rssMB(venue.pid);
  const sampler = setInterval(() => {
    for (const shard of shards) shard.peakRss = Math.max(shard.peakRss, rssMB(shard.exporter.pid));
    venuePeakRss = Math.max(venuePeakRss, rssMB(venue.pid));
  }, 1000);
  started.push(async () => clearInterval(sampler));

  // The venue's requests in each interval, counted at the same boundaries as the probes.
  await venue.resetStats();
  const venueCpuBefore = cpuMs(venue.pid);
  const clientCpuBefore = process.cpuUsage();
  const start = performance.now();
  const venueRequests: Array<Record<string, number>> = [];
  const counting = (async () => {
    for (let k = 0; k < intervals; k++) {
      await pause(start + (k + 1) * intervalMs - performance.now());
      venueRequests.push((await venue.stats()).requests);
      await venue.resetStats();
    }
  })();
  const collections = new Collections();
  const onAnswer = collections.record.bind(collections);
  await Promise.all(
    shards.map(async (shard) => {
      shard.figures = (await probeRounds(shard.exporter.pid, shard.targets, intervals, intervalMs, { timeoutSeconds, onAnswer })).figures;
    }),
  );
  await counting;
  const venueCores = (cpuMs(venue.pid) - venueCpuBefore) / (performance.now() - start);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const clientCores = (clientCpu.user + clientCpu.system) / 1000 / (performance.now() - start);
  clearInterval(sampler);

  // The first interval holds every first collection, slow after a start: the figures are those after it.
  const afterFirst = <T>(list: readonly T[]): readonly T[] => (list.length > 1 ? list.slice(1) : list);
  const perInterval = Array.from({ length: intervals }, (_, k) => shards.map((s) => s.figures[k]!));
  const coresIn = (list: readonly IntervalFigures[]) => sum(list.map((f) => f.cpuMs)) / intervalMs;
  /** Cores on average after the first interval, and in the busiest interval: collections can bunch into every other one. */
  const coresCell = (byInterval: ReadonlyArray<readonly IntervalFigures[]>) => {
    const each = afterFirst(byInterval).map(coresIn);
    return `${round2(sum(each) / each.length)} (${round2(Math.max(...each))})`;
  };
  /** `figures` of every interval; CPU per probe and being up are judged after the first. */
  const row = (
    name: string,
    targets: number,
    figures: readonly IntervalFigures[],
    steady: readonly IntervalFigures[],
    upAtLeast: number,
    cores: string,
    peak: number,
  ) => [
    name,
    String(targets),
    String(upAtLeast),
    `${sum(figures.map((f) => f.ok))} / ${sum(figures.map((f) => f.probes))}`,
    String(sum(figures.map((f) => f.unavailable))),
    String(sum(figures.map((f) => f.other + f.timeouts))),
    String(round2(sum(steady.map((f) => f.cpuMs)) / Math.max(1, sum(steady.map((f) => f.probes))))),
    cores,
    String(round1(peak)),
  ];
  const upAfterFirst = afterFirst(perInterval.map((list) => sum(list.map((f) => f.up))));
  const totalTargets = sum(shards.map((s) => s.targets.length));
  console.log(
    table([
      ["shard", "targets", "up, fewest after the first interval", "200 / probes", "503s", "errors", "cpu ms/probe", "cores (busiest interval)", "peak RSS MB"],
      ...shards.map((shard, i) => {
        const steady = afterFirst(shard.figures);
        const cores = coresCell(shard.figures.map((f) => [f]));
        return row(String(i), shard.targets.length, shard.figures, steady, Math.min(...steady.map((f) => f.up)), cores, shard.peakRss);
      }),
      // CPU per probe over every shard's probes; cores and memory are the fleet's, added up.
      row(
        "total",
        totalTargets,
        shards.flatMap((s) => s.figures),
        shards.flatMap((s) => afterFirst(s.figures)),
        Math.min(...upAfterFirst),
        coresCell(perInterval),
        sum(shards.map((s) => s.peakRss)),
      ),
    ]),
  );

  const latency = (list: readonly IntervalFigures[], p: number) =>
    String(
      round1(
        percentile(
          list.flatMap((f) => f.latencies),
          p,
        ),
      ),
    );
  const intervalRows = perInterval.map((list, k) => {
    const requests = venueRequests[k] ?? {};
    return [
      String(k + 1),
      String(sum(list.map((f) => f.probes))),
      String(sum(list.map((f) => f.up))),
      String(sum(list.map((f) => f.unavailable))),
      String(sum(list.map((f) => f.other + f.timeouts))),
      latency(list, 50),
      latency(list, 99),
      String(round2(coresIn(list))),
      String(sum(Object.values(requests))),
      String(requests.account_info ?? 0),
    ];
  });
  console.log(
    table([
      ["interval", "probes", "up", "503s", "errors", "p50 ms", "p99 ms", "replicas' cores", "venue requests", "account-info (collections)"],
      ...intervalRows,
    ]),
  );

  const collected = afterFirst(venueRequests).map((r) => r.account_info ?? 0);
  const requests = afterFirst(venueRequests).map((r) => sum(Object.values(r)));
  const range = (values: readonly number[]) => `${Math.min(...values)}-${Math.max(...values)}`;
  // An account's second probe may still find its first collection fresh; by the third it has had another.
  const renewed = intervals < 3 ? "" : `, and ${collections.renewed} of ${accounts} accounts collected again after the first`;
  const withinBound = collected.every((n) => n <= accounts) && (intervals < 3 || collections.renewed === accounts);
  console.log(
    `venue requests per interval after the first: ${range(requests)}; collections (account-info): ${range(collected)}, at most ${accounts} allowed ` +
      `(one per account and interval)${renewed}: ${withinBound ? "met" : "MISSED"}`,
  );
  console.log(`oldest collection served after the first interval: ${round1(collections.oldestServedMs / 1000)} s old`);
  console.log(
    `on the same cores: the simulator ${round2(venueCores)} cores (peak RSS ${round1(venuePeakRss)} MB), this probing client ${round2(clientCores)} cores, load average ${loadavg()[0]?.toFixed(1)} at the end`,
  );
  const everyUp = upAfterFirst.every((up) => up === totalTargets);
  console.log(`every target up after the first interval: ${everyUp ? "yes" : `NO (${Math.min(...upAfterFirst)} of ${totalTargets} at worst)`}`);
  await stopStarted();
  const all = shards.flatMap((s) => s.figures);
  return {
    everyUp,
    unavailable: sum(all.map((f) => f.unavailable)),
    errors: sum(all.map((f) => f.other + f.timeouts)),
    p99Ms: percentile(
      all.flatMap((f) => f.latencies),
      99,
    ),
    busiestCores: Math.max(...afterFirst(perInterval).map(coresIn)),
    collected: range(collected),
  };
}

async function main(): Promise<void> {
  const accounts = positiveInteger("BENCH_ACCOUNTS", 2000);
  const shardCount = positiveInteger("BENCH_SHARDS", 2);
  const intervalSeconds = positiveInteger("BENCH_INTERVAL_SECONDS", 15);
  const intervals = positiveInteger("BENCH_INTERVALS", 4);
  const base = process.env.BENCH_BASE;
  const runStarted = performance.now();
  console.log(
    `Node ${process.version}; ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, shared by the simulator and every replica`,
  );
  const runs = base === undefined || base === "" ? 1 : 2;
  const latencies = venueLatencies();
  console.log(
    `${accounts} accounts (one collateral each) over ${shardCount} shard${shardCount === 1 ? "" : "s"}, every target probed every ${intervalSeconds} s for ${intervals} intervals: ` +
      `runs about ${latencies.length * runs * (intervals * intervalSeconds + 3)} s; minimum collection interval ${intervalSeconds} s, every limit at its default; ` +
      `venue latencies ${latencies.join(", ")} ms`,
  );
  const outcomes: Array<[string, Outcome]> = [];
  for (const latencyMs of latencies) {
    const run = { accounts, shardCount, intervalSeconds, intervals, latencyMs };
    console.log(`\n${latencyOf(latencyMs).text}:`);
    outcomes.push([`this build, ${latencyMs} ms`, await runFleet(run, undefined)]);
    if (runs === 2) {
      console.log(`\nthe base build (${base}), the same way on a fresh simulator, ${latencyMs} ms:`);
      outcomes.push([`base, ${latencyMs} ms`, await runFleet(run, join(base!, "main.js"))]);
    }
  }
  console.log(
    table([
      ["build", "every target up after the first interval", "503s", "errors", "p99 ms", "busiest interval's cores", "collections per interval after the first"],
      ...outcomes.map(([name, o]) => [
        name,
        o.everyUp ? "yes" : "NO",
        String(o.unavailable),
        String(o.errors),
        String(round1(o.p99Ms)),
        String(round2(o.busiestCores)),
        o.collected,
      ]),
    ]),
  );
  console.log(`ran ${round1((performance.now() - runStarted) / 1000)} s`);
}

try {
  await main();
} catch (error) {
  // A process ended by Ctrl-C while it started fails the run: the signal's handler exits 130 for it.
  if (!interrupted) throw error;
} finally {
  await stopStarted();
  agent.destroy();
}
