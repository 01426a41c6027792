// `npm run bench`: the exporter on a moving venue (the headline) beside the floor, the bound and a
// naive peer, interleaved in one run, three runs; then the steady venue (the best case of body
// reuse), the memory at a paced scrape, and the cost per unit as markets and orders grow. Prints tables, writes JSON.
// `npm run bench -- headline|steady|paced|growth` runs one part. A benchmark, not a test: it measures.

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { Bound, render } from "./bound.js";
import { aloneRssMB } from "./bound-alone-process.js";
import { growth, type Growth } from "./growth.js";
import { cpuMs, percentile, rssMB } from "./measure.js";
import { paced } from "./paced.js";
import { startLargeVenue } from "./large-venue.js";
import { agent, fetchRaw, positiveInteger, round1, round2, seriesOf, table } from "./shared.js";

const RUNS = 3;
const PER_RUN = 150;
/** The exporter's resident size is read after this many scrapes of the moving venue. */
const RSS_AFTER = 1500;
const STEADY_SCRAPES = 150;
/** The paced part: this many scrapes, one a second (BENCH_PACED_SCRAPES and BENCH_PACED_INTERVAL_MS override them). */
const PACED_SCRAPES = 120;
const PACED_INTERVAL_MS = 1000;

const median = (values: number[]) => percentile(values, 50);
/** Issue 37's guard: the exporter's p50 at most this many times the bound's on the moving venue. */
const P50_BOUND_RATIO = 1.3;
/** Issue 37's guard: the exporter's resident size at most this many times the floor's, alone, at the same scrape count. */
const RSS_FLOOR_RATIO = 1.5;

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Contender {
  name: string;
  scrape(): Promise<unknown>;
  /** CPU milliseconds the contender's process has used so far. */
  cpu(): number;
}

interface Figures {
  p50: number;
  p99: number;
  cpuMs: number;
}

/** `n` scrapes of each contender, taking turns (the order rotates), CPU counted around each one's own scrapes. */
async function interleaved(contenders: Contender[], n: number): Promise<Record<string, Figures>> {
  const latencies = contenders.map(() => [] as number[]);
  const cpu = contenders.map(() => 0);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < contenders.length; k++) {
      const j = (i + k) % contenders.length;
      const c = contenders[j]!;
      const before = c.cpu();
      const started = performance.now();
      await c.scrape();
      latencies[j]!.push(performance.now() - started);
      cpu[j]! += c.cpu() - before;
    }
  }
  return Object.fromEntries(
    contenders.map((c, j) => [c.name, { p50: round2(percentile(latencies[j]!, 50)), p99: round2(percentile(latencies[j]!, 99)), cpuMs: round2(cpu[j]! / n) }]),
  );
}

interface Row extends Figures {
  name: string;
  series: number;
  bytes: number;
  sentBytes: number;
  rssMB?: number;
}

/**
 * The four contenders against one simulated venue, with their series and sizes checked first. With
 * `alone`, the floor and the bound then run alone in processes of their own for as many scrapes as
 * the exporter, so the memory column compares like with like (as is a floor reading through the
 * exporter's own connection pool instead of fetch, the cheapest way to make the same requests).
 */
async function contest(moving: boolean, runs: number, perRun: number, alone = false) {
  const { target, exporter, peer, close } = await startLargeVenue(moving);
  try {
    const bound = new Bound(target);
    const exporterUrl = new URL("metrics", exporter.url);
    const peerUrl = new URL("metrics", peer.url);
    const contenders: Contender[] = [
      { name: "floor", scrape: () => bound.fetch(), cpu: ownCpuMs },
      { name: "bound", scrape: () => bound.scrape(), cpu: ownCpuMs },
      { name: "naive peer", scrape: () => fetchRaw(peerUrl), cpu: () => cpuMs(peer.pid) },
      { name: "exporter", scrape: () => fetchRaw(exporterUrl), cpu: () => cpuMs(exporter.pid) },
    ];
    // Warm (connections, JIT, caches), and what each one answers.
    for (let i = 0; i < 5; i++) for (const c of contenders) await c.scrape();
    const exporterText = (await fetchRaw(exporterUrl, { "accept-encoding": "identity" })).toString();
    const peerText = (await fetchRaw(peerUrl)).toString();
    const boundText = render(await bound.fetch());
    const sizes: Record<string, { series: number; bytes: number; sentBytes: number }> = {
      floor: { series: 0, bytes: 0, sentBytes: 0 },
      bound: { series: seriesOf(boundText), bytes: Buffer.byteLength(boundText), sentBytes: (await bound.scrape()).length },
      "naive peer": { series: seriesOf(peerText), bytes: Buffer.byteLength(peerText), sentBytes: Buffer.byteLength(peerText) },
      exporter: { series: seriesOf(exporterText), bytes: Buffer.byteLength(exporterText), sentBytes: (await fetchRaw(exporterUrl)).length },
    };
    const perRunFigures: Array<Record<string, Figures>> = [];
    for (let r = 0; r < runs; r++) {
      process.stderr.write(`  run ${r + 1} of ${runs}...\n`);
      perRunFigures.push(await interleaved(contenders, perRun));
    }
    // Top the exporter up to RSS_AFTER scrapes of this venue, then read its resident size.
    const done = 5 + 2 + runs * perRun;
    for (let i = done; i < RSS_AFTER; i++) await fetchRaw(exporterUrl);
    const rows: Row[] = contenders.map((c) => ({
      name: c.name,
      ...sizes[c.name]!,
      p50: median(perRunFigures.map((f) => f[c.name]!.p50)),
      p99: median(perRunFigures.map((f) => f[c.name]!.p99)),
      cpuMs: median(perRunFigures.map((f) => f[c.name]!.cpuMs)),
    }));
    rows.find((r) => r.name === "exporter")!.rssMB = round1(rssMB(exporter.pid));
    rows.find((r) => r.name === "naive peer")!.rssMB = round1(rssMB(peer.pid));
    const scrapes = Math.max(done, RSS_AFTER);
    let poolFloorRssMB: number | undefined;
    let codeFloorRssMB: number | undefined;
    let stackFloorRssMB: number | undefined;
    if (alone) {
      process.stderr.write(`  floor, bound, pool floor, code floor and stack floor alone, ${scrapes} scrapes each...\n`);
      rows.find((r) => r.name === "floor")!.rssMB = round1((await aloneRssMB("floor", target, scrapes)).rssMB);
      rows.find((r) => r.name === "bound")!.rssMB = round1((await aloneRssMB("bound", target, scrapes)).rssMB);
      poolFloorRssMB = round1((await aloneRssMB("pool-floor", target, scrapes)).rssMB);
      codeFloorRssMB = round1((await aloneRssMB("code-floor", target, scrapes)).rssMB);
      stackFloorRssMB = round1((await aloneRssMB("stack-floor", target, scrapes)).rssMB);
    }
    return { rows, runs: perRunFigures, exporterScrapes: scrapes, poolFloorRssMB, codeFloorRssMB, stackFloorRssMB };
  } finally {
    await close();
  }
}

function contestTable(rows: Row[]): string {
  const bound = rows.find((r) => r.name === "bound")!;
  return table([
    ["", "series", "bytes", "sent", "p50 ms", "p99 ms", "cpu ms/scrape", "p50/bound", "cpu/bound", "rss MB"],
    ...rows.map((r) => [
      r.name,
      r.series === 0 ? "" : String(r.series),
      r.bytes === 0 ? "" : String(r.bytes),
      r.sentBytes === 0 ? "" : String(r.sentBytes),
      String(r.p50),
      String(r.p99),
      String(r.cpuMs),
      `${round2(r.p50 / bound.p50)}x`,
      `${round2(r.cpuMs / bound.cpuMs)}x`,
      r.rssMB === undefined ? "" : String(r.rssMB),
    ]),
  ]);
}

/** The targets of the moving venue: the ratio within each run (the contenders took turns), and their median. */
function targets(result: Awaited<ReturnType<typeof contest>>): { lines: string[]; held: Record<string, boolean> } {
  const ratios = (a: string, b: string, k: keyof Figures) => result.runs.map((f) => round2(f[a]![k] / f[b]![k]));
  const line = (label: string, values: number[], target?: number) => {
    const m = median(values);
    const verdict = target === undefined ? "" : ` (target <= ${target}x: ${m <= target ? "holds" : "MISSED"})`;
    return { text: `${label} runs ${values.map((v) => `${v}x`).join(" ")}; median ${m}x${verdict}`, ok: target === undefined || m <= target };
  };
  const p50Bound = line("exporter p50 / bound p50:  ", ratios("exporter", "bound", "p50"), P50_BOUND_RATIO);
  const cpuBound = line("exporter cpu / bound cpu:  ", ratios("exporter", "bound", "cpuMs"));
  const p50Peer = line("exporter p50 / peer p50:   ", ratios("exporter", "naive peer", "p50"));
  const rss = result.rows.find((r) => r.name === "exporter")!.rssMB ?? Number.POSITIVE_INFINITY;
  const rssOf = (name: string) => result.rows.find((r) => r.name === name)!.rssMB;
  const floorAlone = rssOf("floor");
  const rssLines: string[] = [];
  let rssHeld: boolean | undefined;
  if (floorAlone !== undefined && result.codeFloorRssMB !== undefined) {
    // Same Node, flags, malloc setting and scrape count as the exporter.
    const ratio = round2(rss / floorAlone);
    rssHeld = ratio <= RSS_FLOOR_RATIO;
    rssLines.push(
      `exporter rss after ${result.exporterScrapes} scrapes / floor alone: ${rss} / ${floorAlone} MB = ${ratio}x (target <= ${RSS_FLOOR_RATIO}x: ${rssHeld ? "holds" : "MISSED"})`,
      `alone, as many scrapes, the exporter's runtime settings: floor ${floorAlone} MB, bound ${rssOf("bound")} MB, ` +
        `floor through the exporter's pool (undici request()) ${result.poolFloorRssMB} MB, ` +
        `floor with the exporter's code loaded ${result.codeFloorRssMB} MB (${round2(result.codeFloorRssMB / floorAlone)}x the floor alone: the least the exporter's code can hold), ` +
        `floor with only its libraries loaded (express, @prometheus-io/client, pino, ky, undici) ${result.stackFloorRssMB} MB (${round2((result.stackFloorRssMB ?? 0) / floorAlone)}x)`,
    );
  } else {
    rssLines.push(`exporter rss after ${result.exporterScrapes} scrapes: ${rss} MB (run alone processes for the target's ratio)`);
  }
  return {
    lines: [p50Bound.text, cpuBound.text, p50Peer.text, ...rssLines],
    held: { p50Bound: p50Bound.ok, ...(rssHeld === undefined ? {} : { rss: rssHeld }) },
  };
}

function growthLines(results: Growth[]): string[] {
  return [
    table([
      ["grows with", "size", "series", "exporter cpu ms/scrape", "bound cpu ms/scrape", "exporter/bound"],
      ...results.flatMap((g) =>
        g.points.map((p) => [g.label, String(p.size), String(p.series), String(p.cpuMs), String(p.boundCpuMs), `${round2(p.cpuMs / p.boundCpuMs)}x`]),
      ),
    ]),
    "",
    ...results.map(
      (g) =>
        `${g.label}: ${g.perUnit.map((u) => `${u} us`).join(", ")} per ${g.unit} per step; last step ${g.lastStepVsLinear}x the linear extrapolation` +
        (g.microsecondsPerSeries === undefined ? "" : `; ${g.microsecondsPerSeries} us per series`),
    ),
  ];
}

async function main(): Promise<void> {
  const only = process.argv[2];
  const want = (part: string) => only === undefined || only === part;
  const machine = `${cpus().length} x ${cpus()[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
  const out: string[] = [`Node ${process.version}; ${machine}`];
  const json: Record<string, unknown> = { node: process.version, machine, date: new Date().toISOString() };
  if (want("headline")) {
    process.stderr.write("moving venue (large profile), interleaved...\n");
    const moving = await contest(true, RUNS, PER_RUN, true);
    const checked = targets(moving);
    json.moving = { ...moving, targets: checked.held };
    out.push(
      "",
      `Large profile, moving venue (every private answer differs from the last), ${RUNS} interleaved runs of ${PER_RUN} scrapes each, medians:`,
      contestTable(moving.rows),
      "",
      ...checked.lines,
    );
  }
  if (want("steady")) {
    process.stderr.write("steady venue (large profile)...\n");
    const steady = await contest(false, 1, STEADY_SCRAPES);
    json.steady = steady;
    out.push(
      "",
      `Large profile, steady venue (unchanged answers: the best case of body reuse), one run of ${STEADY_SCRAPES} interleaved scrapes:`,
      contestTable(steady.rows),
    );
  }
  if (want("paced")) {
    const scrapes = positiveInteger("BENCH_PACED_SCRAPES", PACED_SCRAPES);
    const intervalMs = positiveInteger("BENCH_PACED_INTERVAL_MS", PACED_INTERVAL_MS);
    process.stderr.write(`paced: ${scrapes} scrapes, one every ${intervalMs} ms...\n`);
    const result = await paced(scrapes, intervalMs);
    json.paced = result;
    out.push(
      "",
      `Large profile, moving venue, one scrape every ${intervalMs} ms (exporter and naive peer at the same ticks; floor and bound alone, at the same pace), ${scrapes} scrapes:`,
      table([
        ["", "rss MB after the last", "most rss MB seen"],
        ["floor (alone)", String(result.floor.rssMB), String(result.floor.maxRssMB)],
        ["bound (alone)", String(result.bound.rssMB), String(result.bound.maxRssMB)],
        ["naive peer", String(result.peer.rssMB), String(result.peer.maxRssMB)],
        ["exporter", String(result.exporter.rssMB), String(result.exporter.maxRssMB)],
      ]),
    );
  }
  if (want("growth")) {
    process.stderr.write("cost as work grows (moving venue)...\n");
    const results = [
      await growth(
        "markets",
        "market",
        [100, 1000, 5000],
        (n) => ["--markets", String(n), "--positions", "5", "--active-orders", "20", "--history-orders", "20"],
        (n) => (n >= 5000 ? 15 : 40),
        true,
      ),
      await growth(
        "active orders",
        "order",
        [1000, 10000, 100000],
        (n) => ["--markets", "50", "--active-orders", String(n), "--history-orders", "20"],
        (n) => (n >= 100000 ? 3 : n >= 10000 ? 12 : 40),
        false,
      ),
    ];
    json.growth = results;
    out.push("", "Cost as work grows, moving venue (median of three batches each):", ...growthLines(results));
  }
  process.stdout.write(`${out.join("\n")}\n`);
  agent.destroy();
  mkdirSync("bench-results", { recursive: true });
  writeFileSync("bench-results/benchmark.json", `${JSON.stringify(json, null, 2)}\n`);
  process.stderr.write("wrote bench-results/benchmark.json\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
