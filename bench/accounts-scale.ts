// `npm run bench:scale`: one exporter, as the image runs it, with a thousand simulated accounts (one collateral
// each) probed through `/sd` every 15 s as Prometheus spreads its targets, for a few intervals from its start;
// then `/metrics` of the same config against a 10 s deadline. Prints numbers; a benchmark, not a test.
// BENCH_ACCOUNTS, BENCH_INTERVALS, BENCH_INTERVAL_SECONDS change the run; BENCH_VENUE_LATENCY_MS, a comma-separated list
// (default 0,150,300), holds every venue answer that long, the exporter's row (and the base's) once per latency, the bounds' at the first; BENCH_CPU_PROF=DIR profiles the
// exporter (node --cpu-prof); BENCH_SIM_ARGS adds simulator flags ("--positions 3 --active-orders 6");
// BENCH_NODE_ARGS adds node flags after the shipped ones (the shebang's; a base build runs with its own); TRADING_* variables in its
// environment reach the exporter, to weigh a setting (the bound pages the history as TRADING_HISTORY_PAGE_SIZE
// says). Then the bound on the same
// accounts and schedule, alone and with the product's ky and express (bound-server.ts), for comparison (BENCH_BOUND=0
// skips them), and last the exporter and the bound with ky and express side by side, probed at once: the comparison
// the host's drift over minutes does not tilt. BENCH_BASE=DIR (the dist folder of another build, e.g. the
// commit before a change) runs that build's exporter on the same schedule after this one and prints the guard (CPU
// per probe and peak RSS ≤ 1.15x), then the two builds side by side, probed at once.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { benchNodeArgs, type ExporterProcess, startExporterProcess } from "./exporter-process.js";
import { cpuMs, percentile, rssMB } from "./measure.js";
import { agent, type Answer, discover, type IntervalFigures, pause, probeRounds, scrape, steadyCpuPerProbe, targetUp } from "./prometheus-probes.js";
import { latencyOf, positiveInteger, round1, round2, table, venueLatencies } from "./shared.js";
import { deskSimulatorArgs, startSimulatorProcess } from "./simulator-process.js";

const KEY = "scale-key";

/** The exporter's settings in this process's environment (TRADING_*), to weigh one; the benchmark's own go after them. */
function settingsFromEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith("TRADING_") && e[1] !== undefined));
}
const BOUND_SERVER = new URL("./bound-server.js", import.meta.url).pathname;
type Target = { name: string; url: URL };

/** An exporter (`main`: another build's) of `accounts` desk accounts on `venue`, its config file written in `dir`. */
function startDeskExporter(venue: string, accounts: number, dir: string, nodeArgs: readonly string[], main?: string): Promise<ExporterProcess> {
  const configFile = join(dir, "trading-exporter.yml");
  writeFileSync(
    configFile,
    exporterConfigYaml({ accounts, apiKey: KEY, apiKeyHeader: "X-Api-Key", collaterals: [{ id: "USDC", shape: "detailed" }] }, venue.replace(/\/$/, "")),
  );
  return startExporterProcess({ ...settingsFromEnvironment(), TRADING_CONFIG_FILE: configFile, TRADING_LOG_LEVEL: "info" }, nodeArgs, main);
}

/** The bound server (bound-server.ts) of the desk's accounts on `venue`, with `libraries`, and its probe targets: the exporter's account targets. */
async function startBound(
  venue: string,
  accounts: number,
  targets: readonly Target[],
  nodeArgs: readonly string[],
  libraries: readonly string[],
): Promise<{ bound: ExporterProcess; targets: Target[] }> {
  const pageSize = process.env.TRADING_HISTORY_PAGE_SIZE ?? "";
  const bound = await startExporterProcess({}, nodeArgs, BOUND_SERVER, [venue, KEY, String(accounts), libraries.join(","), pageSize]);
  const accountTargets = targets
    .filter((t) => !t.name.includes("/"))
    .map((t) => ({ name: t.name, url: new URL(`/probe?target=${encodeURIComponent(t.name)}`, bound.url) }));
  return { bound, targets: accountTargets };
}
/** The guard against the code before a change (BENCH_BASE): CPU per probe and peak RSS at most this ratio. */
const GUARD = 1.15;
/** A /metrics of every account answers inside Prometheus's 10 s scrape timeout. */
const GOALS = { metricsSeconds: 10 };

/** What the answers of a round are made of: an account's answer, and what Prometheus stores for each account. */
interface AnswerShape {
  /** Median over the account targets: sample lines, bytes of text, bytes sent (gzip). */
  accountLines: number;
  accountBytes: number;
  accountGzipBytes: number;
  /** Sample lines over every target /sd lists, divided by the accounts: the series stored per account. */
  seriesPerAccount: number;
  /** Median history orders an account's answer read (trading_order_history_fetched_orders): the venue grows as a run goes on. */
  historyOrders: number;
  /** trading_market_* samples over every target, and how many distinct ones. */
  marketSamples: number;
  distinctMarketSamples: number;
}

function answerShape(answers: ReadonlyMap<string, Answer>, accounts: number): AnswerShape {
  const lines: number[] = [];
  const bytes: number[] = [];
  const gzipBytes: number[] = [];
  const history: number[] = [];
  let samples = 0;
  let marketSamples = 0;
  const distinctMarket = new Set<string>();
  for (const answer of answers.values()) {
    if (answer.status !== 200) continue;
    const text = gunzipSync(answer.body).toString("utf8");
    const sampleLines = text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    samples += sampleLines.length;
    for (const line of sampleLines) {
      if (!line.startsWith("trading_market_")) continue;
      marketSamples++;
      distinctMarket.add(line.slice(0, line.lastIndexOf(" ")));
    }
    if (!/^trading_up\{/m.test(text)) continue;
    lines.push(sampleLines.length);
    const fetched = /^trading_order_history_fetched_orders\{[^}]*\} (\d+)$/m.exec(text);
    if (fetched !== null) history.push(Number(fetched[1]));
    bytes.push(Buffer.byteLength(text));
    gzipBytes.push(answer.body.length);
  }
  return {
    accountLines: percentile(lines, 50),
    accountBytes: percentile(bytes, 50),
    accountGzipBytes: percentile(gzipBytes, 50),
    seriesPerAccount: samples / accounts,
    historyOrders: percentile(history, 50),
    marketSamples,
    distinctMarketSamples: distinctMarket.size,
  };
}

/**
 * The bound in the same run: the same accounts probed on the same schedule by a server that only fetches,
 * parses, templates and gzips (bound-server.ts), run with the exporter's flags. Prints its CPU and memory beside the exporter's.
 */
async function boundRow(
  simulatorArgs: readonly string[],
  accounts: number,
  targets: ReadonlyArray<{ name: string; url: URL }>,
  intervals: number,
  intervalMs: number,
  nodeArgs: readonly string[],
  libraries: readonly string[],
  exporter: { cpuPerProbe: number; peakRss: number; idleRss: number },
): Promise<void> {
  // A venue of its own, started as the exporter's was: the simulator's histories grow as it runs, so each
  // bound reads a venue of the same age as the exporter did, not one grown over the runs before it.
  const venue = await startSimulatorProcess([...simulatorArgs]);
  const { bound, targets: accountTargets } = await startBound(venue.url, accounts, targets, nodeArgs, libraries);
  try {
    // Settled as the exporter's idle figure was.
    await pause(2000);
    const idle = rssMB(bound.pid);
    const { figures, last } = await probeRounds(bound.pid, accountTargets, intervals, intervalMs);
    const ok = [...last.values()].filter((a) => a.status === 200).length;
    const failed = figures.slice(1).reduce((n, f) => n + f.probes - f.ok, 0);
    const peak = Math.max(...figures.map((f) => f.rssMB));
    const cpu = steadyCpuPerProbe(figures);
    const history = answerShape(last, accountTargets.length).historyOrders;
    const p50 = percentile(
      figures.slice(1).flatMap((f) => f.latencies),
      50,
    );
    console.log(
      `${libraries.length === 0 ? "bound" : `bound with ${libraries.join(" and ")}`}, same accounts and schedule (${libraries.includes("ky") ? "ky over the pool" : "the pool"}, JSON.parse, a template, gzip${libraries.includes("express") ? ", served by express" : ", node:http"}): CPU per probe ${round2(cpu)} ms ` +
        `(exporter ${round2(exporter.cpuPerProbe / cpu)}x), peak RSS ${round1(peak)} MB (exporter ${round2(exporter.peakRss / peak)}x), idle RSS ${round1(idle)} MB (exporter ${round2(exporter.idleRss / idle)}x), ${ok} of ${accountTargets.length} answered 200 at the last interval, ${failed} probe${failed === 1 ? "" : "s"} not 200 after the first interval, p50 of a probe ${round1(p50)} ms; ${history} history orders read`,
    );
  } finally {
    await bound.close();
    await venue.close();
  }
}

/**
 * The code before a change in the same run (BENCH_BASE: the dist folder of its build): its exporter on a venue of
 * its own, started as the exporter's was, probed on the same schedule. Prints its CPU and memory beside the exporter's.
 */
async function baseRow(
  baseDist: string,
  simulatorArgs: readonly string[],
  accounts: number,
  intervals: number,
  intervalMs: number,
  nodeArgs: readonly string[],
  exporter: { cpuPerProbe: number; peakRss: number },
): Promise<void> {
  const venue = await startSimulatorProcess([...simulatorArgs]);
  const dir = mkdtempSync(join(tmpdir(), "accounts-scale-base-"));
  const base = await startDeskExporter(venue.url, accounts, dir, nodeArgs, join(baseDist, "main.js"));
  try {
    const targets = await discover(base);
    const { figures, last } = await probeRounds(base.pid, targets, intervals, intervalMs);
    const cpu = steadyCpuPerProbe(figures);
    const peak = Math.max(...figures.map((f) => f.rssMB));
    const up = [...last.values()].filter(targetUp).length;
    console.log(
      `base (${baseDist}), same accounts and schedule: CPU per probe ${round2(cpu)} ms (exporter ${round2(exporter.cpuPerProbe / cpu)}x, bound ≤ ${GUARD}x: ${exporter.cpuPerProbe <= GUARD * cpu ? "met" : "MISSED"}), ` +
        `peak RSS ${round1(peak)} MB (exporter ${round2(exporter.peakRss / peak)}x, bound ≤ ${GUARD}x: ${exporter.peakRss <= GUARD * peak ? "met" : "MISSED"}), ${up} of ${targets.length} targets up at the last interval`,
    );
  } finally {
    await base.close();
    await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts one side on `venue` (a config file, if any, in `dir`); the second side is given the first's targets. */
type StartSide = (venue: string, dir: string, firstTargets: Target[]) => Promise<{ process: ExporterProcess; targets: Target[] }>;

/**
 * Two servers at once: each on a venue of its own, the two started together, both probed on the same schedule in the
 * same intervals, so that the host's drift over minutes (a third here between runs) falls on both alike. CPU per
 * probe answered 200 after the first interval, each process's own, both at their defaults; the probes not 200 say
 * whether each did its whole work.
 */
async function sideBySideRow(
  names: [string, string],
  start: [StartSide, StartSide],
  simulatorArgs: readonly string[],
  intervals: number,
  intervalMs: number,
): Promise<void> {
  const venues = await Promise.all([startSimulatorProcess([...simulatorArgs]), startSimulatorProcess([...simulatorArgs])]);
  const dir = mkdtempSync(join(tmpdir(), "accounts-scale-side-"));
  const started: ExporterProcess[] = [];
  try {
    const first = await start[0](venues[0]!.url, dir, []);
    started.push(first.process);
    const second = await start[1](venues[1]!.url, dir, first.targets);
    started.push(second.process);
    const rounds = await Promise.all([first, second].map((side) => probeRounds(side.process.pid, side.targets, intervals, intervalMs)));
    const [a, b] = rounds.map((r) => steadyCpuPerProbe(r.figures)) as [number, number];
    const failed = rounds.map((r) => {
      const steady = r.figures.slice(1);
      return `${steady.reduce((n, f) => n + f.probes - f.ok, 0)} of ${steady.reduce((n, f) => n + f.probes, 0)}`;
    });
    console.log(
      `${names[0]} and ${names[1]} side by side, both probed at once on venues started together (${intervals} intervals of ${intervalMs / 1000} s; ` +
        `CPU after the first): CPU per probe ${round2(a)} ms and ${round2(b)} ms (${names[0]} ${round2(a / b)}x); probes not 200 after the first interval: ${failed[0]} and ${failed[1]}`,
    );
    // Where a difference lives: the main thread runs the code; V8's worker threads mostly collect garbage.
    const [mainA, mainB] = rounds.map((r) => steadyCpuPerProbe(r.figures, "mainThreadCpuMs")) as [number, number];
    const [otherA, otherB] = rounds.map((r) => steadyCpuPerProbe(r.figures, "otherThreadsCpuMs")) as [number, number];
    console.log(
      `  of which main thread ${round2(mainA)} ms and ${round2(mainB)} ms (${round2(mainA / mainB)}x), other threads (V8's workers, mostly the garbage collector) ` +
        `${round2(otherA)} ms and ${round2(otherB)} ms (${round2(otherA / otherB)}x)`,
    );
  } finally {
    for (const child of started) await child.close();
    for (const venue of venues) await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the exporter alone read at one latency: the figures the bounds and the base are held against. */
interface ExporterRow {
  cpuPerProbe: number;
  peakRss: number;
  idleRss: number;
  targets: Target[];
}

/** The exporter alone, as the image runs it, on a venue `latency.ms` away: its table and the lines under it. */
async function exporterRow(
  latency: ReturnType<typeof latencyOf>,
  accounts: number,
  intervals: number,
  intervalMs: number,
  simulatorArgs: readonly string[],
  nodeArgs: readonly string[],
): Promise<ExporterRow> {
  const profileDir = process.env.BENCH_CPU_PROF;
  const simArgs = (process.env.BENCH_SIM_ARGS ?? "").split(/\s+/).filter(Boolean);
  const venue = await startSimulatorProcess([...simulatorArgs, ...latency.simulatorArgs]);
  const dir = mkdtempSync(join(tmpdir(), "accounts-scale-"));
  const exporter = await startDeskExporter(venue.url, accounts, dir, [
    ...nodeArgs,
    ...(profileDir === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", profileDir]),
  ]);
  try {
    // Settled, not ready: the exporter is ready when it listens; this is only for a steady idle figure.
    await pause(2000);
    const idleRss = rssMB(exporter.pid);
    const targets = await discover(exporter);
    console.error(
      `${latency.text}; ${targets.length} targets from /sd; idle RSS ${round1(idleRss)} MB; probing ${intervals} intervals of ${intervalMs / 1000} s`,
    );

    let venueWindow: { startedAt: number } | undefined;
    const start = performance.now();
    const cpuAtStart = cpuMs(exporter.pid);
    const { figures, last } = await probeRounds(exporter.pid, targets, intervals, intervalMs, {
      afterFirst: async () => {
        await venue.resetStats();
        venueWindow = { startedAt: performance.now() };
      },
    });
    const cpuOverProbing = cpuMs(exporter.pid) - cpuAtStart;
    const venueStats = await venue.stats();
    const venueMinutes = (performance.now() - (venueWindow?.startedAt ?? start)) / 60_000;
    const venueRequests = Object.values(venueStats.requests).reduce((a, b) => a + b, 0);
    const up = [...last.values()].filter(targetUp).length;
    const shape = answerShape(last, accounts);
    const rss = rssMB(exporter.pid);
    const loop = await exporter.loopDelay();

    // /metrics of the same config, as a Prometheus with a 10 s timeout scrapes it; waited for up to 60 s
    // so that a late answer says how late it is.
    const metricsUrl = new URL("/metrics", exporter.url);
    const metrics = await scrape(metricsUrl, undefined, 60);
    const metricsText = metrics.status === 200 ? gunzipSync(metrics.body).toString("utf8") : "";
    const dropped = /^trading_exporter_series_dropped_total (\S+)$/m.exec(metricsText)?.[1] ?? "n/a";
    const rssAfterMetrics = rssMB(exporter.pid);

    const steady = figures.slice(1);
    const sum = (pick: (f: IntervalFigures) => number, list = figures) => list.reduce((n, f) => n + pick(f), 0);
    const cpuPerProbe = steadyCpuPerProbe(figures);
    const ok = sum((f) => f.ok, steady);
    const probed = sum((f) => f.probes, steady);
    const p50 = percentile(
      steady.flatMap((f) => f.latencies),
      50,
    );
    const rows = [
      ["interval", "probes", "200", "503", "other", "timeouts", "p50 ms", "p99 ms", "cpu ms/probe", "rss MB"],
      ...figures.map((f, k) => [
        String(k + 1),
        String(f.probes),
        String(f.ok),
        String(f.unavailable),
        String(f.other),
        String(f.timeouts),
        String(round1(percentile(f.latencies, 50))),
        String(round1(percentile(f.latencies, 99))),
        String(round2(f.cpuMs / Math.max(1, f.probes))),
        String(round1(f.rssMB)),
      ]),
    ];
    const unavailableLater = sum((f) => f.unavailable, steady);
    const perAccount = (Math.max(rss, ...figures.map((f) => f.rssMB)) - idleRss) / accounts;
    const peakRss = Math.max(rss, ...figures.map((f) => f.rssMB));
    const mark = (ok: boolean) => (ok ? "met" : "MISSED");
    console.log(`Node ${process.version}; ${cpus().length} x ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
    console.log(
      `${accounts} accounts, one collateral each${simArgs.length > 0 ? ` (simulator ${simArgs.join(" ")})` : ""}, probed every ${intervalMs / 1000} s through /sd; ${latency.text}`,
    );
    console.log(table(rows));
    console.log(`idle RSS ${round1(idleRss)} MB; peak RSS ${round1(peakRss)} MB`);
    console.log(`RSS per account above idle ${round2(perAccount)} MB`);
    console.log(
      `CPU per account probe after the first interval ${round2(cpuPerProbe)} ms; over every interval ${round2(
        cpuOverProbing /
          Math.max(
            1,
            sum((f) => f.probes),
          ),
      )} ms`,
    );
    console.log(`cores at this rate: ${round2(sum((f) => f.cpuMs, steady) / (steady.length * intervalMs) || 0)}`);
    console.log(`503s after the first interval: ${unavailableLater} (goal 0: ${mark(unavailableLater === 0)}); in the first: ${figures[0]?.unavailable ?? 0}`);
    console.log(`targets up at the last interval: ${up} of ${targets.length} (goal all: ${mark(up === targets.length)})`);
    const roundTrips = latency.ms > 0 ? ` (${round2(p50 / latency.ms)} round trips of ${latency.ms} ms; goal ≤ 2.5: ${mark(p50 <= 2.5 * latency.ms)})` : "";
    console.log(`after the first interval: ${ok} of ${probed} probes 200 (goal all: ${mark(ok === probed)}); p50 of a probe ${round1(p50)} ms${roundTrips}`);
    console.log(
      `an account's answer (median): ${shape.accountLines} sample lines, ${round1(shape.accountBytes / 1024)} KiB of text, ${round1(shape.accountGzipBytes / 1024)} KiB gzip, ${shape.historyOrders} history orders read; ` +
        `series stored per account over all ${targets.length} targets: ${round1(shape.seriesPerAccount)}; ` +
        `trading_market_* samples over all targets: ${shape.marketSamples} (${shape.distinctMarketSamples} distinct)`,
    );
    console.log(`venue requests per minute after the first interval: ${Math.round(venueRequests / venueMinutes)} (${JSON.stringify(venueStats.requests)})`);
    console.log(`event-loop delay over the run: p50 ${round1(loop.p50)} ms, p99 ${round1(loop.p99)} ms, max ${round1(loop.max)} ms`);
    console.log(
      `/metrics of the same config: ${metrics.status} in ${round1(metrics.ms / 1000)} s (goal ≤ ${GOALS.metricsSeconds} s: ${mark(metrics.status === 200 && metrics.ms <= GOALS.metricsSeconds * 1000)}), ` +
        `${round1(metrics.body.length / 2 ** 20)} MB gzip, ${round1(metricsText.length / 2 ** 20)} MB text, series dropped over the cap ${dropped}; RSS after it ${round1(rssAfterMetrics)} MB`,
    );
    return { cpuPerProbe, peakRss, idleRss, targets };
  } finally {
    await exporter.close();
    await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const accounts = positiveInteger("BENCH_ACCOUNTS", 1000);
  const intervals = positiveInteger("BENCH_INTERVALS", 5);
  const intervalMs = positiveInteger("BENCH_INTERVAL_SECONDS", 15) * 1000;
  const simArgs = (process.env.BENCH_SIM_ARGS ?? "").split(/\s+/).filter(Boolean);
  const latencies = venueLatencies();
  // A tick every 5 s: each probe (every 15 s) still finds its account moved, and the simulator's 1,000 states
  // take 5% of a core instead of 23% from the two the exporter is measured on.
  const deskArgs = [...deskSimulatorArgs(accounts, KEY, 0), "--tick-ms", "5000", ...simArgs];
  // BENCH_NODE_ARGS: node flags after the shipped ones (a later V8 flag wins), to weigh a runtime setting.
  const nodeArgs = benchNodeArgs();
  const baseDist = process.env.BENCH_BASE;
  try {
    let first: ExporterRow | undefined;
    for (const ms of latencies) {
      const latency = latencyOf(ms);
      const row = await exporterRow(latency, accounts, intervals, intervalMs, deskArgs, nodeArgs);
      first ??= row;
      if (baseDist !== undefined && baseDist !== "") {
        await baseRow(baseDist, [...deskArgs, ...latency.simulatorArgs], accounts, intervals, intervalMs, nodeArgs, row);
      }
    }
    // The bounds and the side-by-side rows weigh CPU and memory: at the first latency only (loopback by default).
    const { cpuPerProbe, peakRss, idleRss, targets } = first!;
    const simulatorArgs = [...deskArgs, ...latencyOf(latencies[0]!).simulatorArgs];
    const deskExporter =
      (main?: string): StartSide =>
      async (url, at) => {
        const desk = await startDeskExporter(url, accounts, mkdtempSync(join(at, "exporter-")), nodeArgs, main);
        return { process: desk, targets: await discover(desk) };
      };
    if (baseDist !== undefined && baseDist !== "") {
      await sideBySideRow(
        ["this build", `base (${baseDist})`],
        [deskExporter(), deskExporter(join(baseDist, "main.js"))],
        simulatorArgs,
        intervals,
        intervalMs,
      );
    }
    if (process.env.BENCH_BOUND !== "0") {
      for (const libraries of [[], ["ky"], ["express"], ["ky", "express"]]) {
        await boundRow(simulatorArgs, accounts, targets, intervals, intervalMs, nodeArgs, libraries, { cpuPerProbe, peakRss, idleRss });
      }
      const boundWithKyAndExpress: StartSide = async (url, _at, firstTargets) => {
        const { bound, targets: boundTargets } = await startBound(url, accounts, firstTargets, nodeArgs, ["ky", "express"]);
        return { process: bound, targets: boundTargets };
      };
      await sideBySideRow(["exporter", "bound with ky and express"], [deskExporter(), boundWithKyAndExpress], simulatorArgs, intervals, intervalMs);
    }
  } finally {
    agent.destroy();
  }
}

await main();
