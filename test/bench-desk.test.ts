// The desk benchmarks at a tiny size, so that they keep working. `npm run bench:shards`: every target of both replicas
// up, the venue within one collection per account and interval, another build beside it (BENCH_BASE), and Ctrl-C
// stopping every process it started. `npm run bench:scale`: every target up, the bounds answering, and the exporter
// and the bound side by side. The benchmarks' own sizes (1,000 and 2,000 accounts for minutes) are not part of npm test.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { childrenOf } from "../bench/measure.js";
import { REPO_ROOT } from "./helpers/markdown-docs.js";

const run = promisify(execFile);
const TSC = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
const SHARDS = join(REPO_ROOT, "dist-bench/bench/shards.js");
const SCALE = join(REPO_ROOT, "dist-bench/bench/accounts-scale.js");
const TINY = { BENCH_ACCOUNTS: "20", BENCH_SHARDS: "2", BENCH_INTERVALS: "3", BENCH_INTERVAL_SECONDS: "2", BENCH_VENUE_LATENCY_MS: "0" };

/**
 * Ctrl-C to `bench` once `children` gives the processes it has started (`count` of them, when given): it exits 130 and
 * none of them outlives it. Whatever is left is killed, so a failing test leaves nothing running.
 */
async function interrupted(bench: ChildProcess, children: () => Promise<number[]>, count?: number): Promise<void> {
  const exited = once(bench, "exit");
  let watched: number[] = [];
  try {
    watched = await children();
    if (count !== undefined) expect(watched).toHaveLength(count);
    bench.kill("SIGINT");
    expect((await exited)[0]).toBe(130);
    await expect.poll(() => watched.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  } finally {
    for (const pid of [bench.pid!, ...watched].filter((p) => existsSync(`/proc/${p}`))) process.kill(pid, "SIGKILL");
  }
}

// `npm run build:bench`, without the product's build that npm test has already run.
beforeAll(async () => {
  await run(process.execPath, [TSC, "-p", "bench/tsconfig.json"], { cwd: REPO_ROOT });
}, 120_000);

describe("npm run bench:scale", () => {
  it("10 accounts, 2 intervals of 1 s at 0 and 100 ms: every target up, each bound answering, the exporter and the bound side by side", async () => {
    const env = { ...process.env, BENCH_ACCOUNTS: "10", BENCH_INTERVALS: "2", BENCH_INTERVAL_SECONDS: "1", BENCH_VENUE_LATENCY_MS: "0,100" };
    const { stdout } = await run(process.execPath, [SCALE], { cwd: REPO_ROOT, env, timeout: 80_000 });
    // One exporter row per latency, each with every target up and every probe after the first interval 200.
    const lines = stdout.split("\n");
    expect(lines.filter((l) => l.startsWith("10 accounts, one collateral each")).map((l) => l.slice(l.lastIndexOf(";") + 2))).toEqual([
      "venue latency 0 (loopback)",
      "venue latency 100 ms (±10%)",
    ]);
    expect(lines.filter((l) => l === "targets up at the last interval: 11 of 11 (goal all: met)")).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith("503s after the first interval: 0 (goal 0: met)"))).toHaveLength(2);
    expect(stdout).toMatch(/^after the first interval: 11 of 11 probes 200 \(goal all: met\); p50 of a probe [\d.]+ ms$/m);
    expect(stdout).toMatch(
      /^after the first interval: 11 of 11 probes 200 \(goal all: met\); p50 of a probe [\d.]+ ms \([\d.]+ round trips of 100 ms; goal ≤ 2.5: (met|MISSED)\)$/m,
    );
    const bounds = stdout.split("\n").filter((l) => l.startsWith("bound"));
    expect(
      bounds.map((l) => l.slice(0, l.indexOf(","))),
      stdout,
    ).toEqual(["bound", "bound with ky", "bound with express", "bound with ky and express"]);
    for (const line of bounds)
      expect(line, stdout).toMatch(
        /CPU per probe [\d.]+ ms \(exporter [\d.]+x\), peak RSS [\d.]+ MB \(exporter [\d.]+x\), idle RSS [\d.]+ MB \(exporter [\d.]+x\), 10 of 10 answered 200/,
      );
    // Both probed at once, 2 intervals: the second's probes, every one answered (11 targets of the exporter, 10 of the bound).
    const side =
      /^exporter and bound with ky and express side by side, both probed at once .*\(2 intervals of 1 s; CPU after the first\): CPU per probe ([\d.]+) ms and ([\d.]+) ms \(exporter ([\d.]+)x\); probes not 200 after the first interval: 0 of 11 and 0 of 10$/m.exec(
        stdout,
      );
    expect(side, stdout).not.toBeNull();
    const [exporterCpu, boundCpu, ratio] = side!.slice(1).map(Number) as [number, number, number];
    expect(exporterCpu).toBeGreaterThan(0);
    expect(boundCpu).toBeGreaterThan(0);
    expect(ratio).toBeCloseTo(exporterCpu / boundCpu, 1);
    // The main thread's part of each, and the other threads' (never negative: each read from its own task). Each
    // reading rounds to ticks of 10 ms, so over this tiny run's 11 and 10 probes they need not add up to the figures above.
    const threads =
      /^ {2}of which main thread ([\d.]+) ms and ([\d.]+) ms \([\d.]+x\), other threads \(V8's workers, mostly the garbage collector\) ([\d.]+) ms and ([\d.]+) ms/m.exec(
        stdout,
      );
    expect(threads, stdout).not.toBeNull();
    const [mainA, mainB] = threads!.slice(1).map(Number) as [number, number];
    expect(mainA).toBeGreaterThan(0);
    expect(mainB).toBeGreaterThan(0);
  }, 90_000);
});

describe("npm run bench:shards", () => {
  it("20 accounts over 2 replicas, 3 intervals of 2 s: every target up after the first interval, the venue within the bound", async () => {
    const { stdout } = await run(process.execPath, [SHARDS], { cwd: REPO_ROOT, env: { ...process.env, ...TINY }, timeout: 60_000 });
    const lines = stdout.split("\n");
    // The table of shards: from its header to the table of intervals.
    const from = lines.findIndex((l) => l.startsWith("shard "));
    const rows = lines
      .slice(
        from + 1,
        lines.findIndex((l, i) => i > from && l.startsWith("interval ")),
      )
      .map((l) => l.trim().split(/\s{2,}/));
    expect(rows.map((r) => r[0])).toEqual(["0", "1", "total"]);
    // targets, the fewest up after the first interval: every one, and no 503 or error.
    for (const [, targets, up, , unavailable, errors] of rows) {
      expect(up, stdout).toBe(targets);
      expect([unavailable, errors], stdout).toEqual(["0", "0"]);
    }
    // 20 accounts and the market target, each on one replica.
    expect(rows[2]?.[1]).toBe("21");
    expect(lines).toContain("every target up after the first interval: yes");
    expect(stdout).toMatch(
      /^venue requests per interval after the first: .* at most 20 allowed \(one per account and interval\), and 20 of 20 accounts collected again after the first: met$/m,
    );
  }, 90_000);

  it("with BENCH_VENUE_LATENCY_MS the venue answers that far away: named in the first lines, every target still up", async () => {
    const env = { ...process.env, ...TINY, BENCH_INTERVALS: "2", BENCH_VENUE_LATENCY_MS: "200" };
    const { stdout } = await run(process.execPath, [SHARDS], { cwd: REPO_ROOT, env, timeout: 60_000 });
    const lines = stdout.split("\n");
    expect(lines[1]).toMatch(/; venue latencies 200 ms$/);
    expect(lines).toContain("venue latency 200 ms (±10%):");
    expect(lines).toContain("every target up after the first interval: yes");
    // The first interval's probes each wait for a collection of at least one venue answer held 180 ms or more.
    const first = lines[lines.findIndex((l) => l.startsWith("interval ")) + 1]!.trim().split(/\s{2,}/);
    expect(Number(first[5]), stdout).toBeGreaterThanOrEqual(180);
  }, 90_000);

  it("with BENCH_BASE runs that build's replicas the same way after this one's and sets both side by side", async () => {
    // This build as the base, under another name: the base's replicas must be started from it.
    const base = join(mkdtempSync(join(tmpdir(), "bench-base-")), "dist");
    symlinkSync(join(REPO_ROOT, "dist"), base);
    const env = { ...process.env, ...TINY, BENCH_INTERVALS: "2", BENCH_BASE: base };
    const { stdout } = await run(process.execPath, [SHARDS], { cwd: REPO_ROOT, env, timeout: 60_000 }).finally(() =>
      rmSync(dirname(base), { recursive: true, force: true }),
    );
    expect(stdout).toContain(`the base build (${base}), the same way on a fresh simulator, 0 ms:`);
    expect(stdout.split("\n").filter((l) => l.startsWith("replicas: "))).toEqual([
      `replicas: ${join(REPO_ROOT, "dist/main.js")}`,
      `replicas: ${join(base, "main.js")}`,
    ]);
    expect(stdout.split("\n").filter((l) => l === "every target up after the first interval: yes")).toHaveLength(2);
    const lines = stdout.split("\n");
    const header = lines.findIndex((l) => l.trim().startsWith("build "));
    const rows = lines.slice(header + 1, header + 3).map((l) => l.trim().split(/\s{2,}/));
    // build, every target up, 503s, errors: both builds alike.
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ["this build, 0 ms", "yes", "0", "0"],
      ["base, 0 ms", "yes", "0", "0"],
    ]);
  }, 90_000);

  it("stops the simulator and every replica on Ctrl-C", async () => {
    const bench = spawn(process.execPath, [SHARDS], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...TINY, BENCH_INTERVALS: "30" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const probing = new Promise<void>((resolve, reject) => {
      createInterface({ input: bench.stderr! }).on("line", (line) => line.startsWith("probing ") && resolve());
      bench.once("exit", () => reject(new Error("the benchmark ended before probing")));
    });
    // The simulator and both replicas, all started.
    const started = async () => {
      await probing;
      return childrenOf(bench.pid!);
    };
    await interrupted(bench, started, 3);
  }, 90_000);

  it("stops a process still starting on Ctrl-C: the simulator before it is ready", async () => {
    const bench = spawn(process.execPath, [SHARDS], { cwd: REPO_ROOT, env: { ...process.env, ...TINY }, stdio: "ignore" });
    const started = async () => {
      await expect.poll(() => childrenOf(bench.pid!).length, { timeout: 10_000, interval: 5 }).toBeGreaterThan(0);
      return childrenOf(bench.pid!);
    };
    await interrupted(bench, started);
  }, 30_000);
});
