// `node dist-bench/bench/ha-scrapers.js [--scale N] [--seconds S]`: venue requests of two real Prometheus servers at
// 15 s and 10 s plus a 5 s poller, against one Prometheus at 15 s alone, with and without the minimum
// collection interval. A benchmark, not a test: the goal (at most 1.1 times one server's requests) is read off it.

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startExporterProcess } from "./exporter-process.js";
import { KEY, table } from "./shared.js";
import { startSimulatorProcess } from "./simulator-process.js";

/** The shipped default of scrape.min_collection_interval_seconds, and the scrapers, in real seconds. */
const MIN_INTERVAL_S = 12;
const PROMETHEUS_INTERVALS_S = [15, 10];
const POLLER_INTERVAL_S = 5;
const BASELINE_INTERVAL_S = 15;

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at < 0 ? undefined : Number(process.argv[at + 1]);
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number`);
  return value;
}

/** Intervals are divided by this, so a run of the same number of collections takes less wall time. */
const SCALE = argument("--scale", 5);
/** Wall time counted per run, after a warm-up of one longest interval. */
const SECONDS = argument("--seconds", 60);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Debian's prometheus scraping `/metrics` of the exporter every `intervalS`, in a temporary directory of its own. */
async function startPrometheus(exporterUrl: string, intervalS: number): Promise<{ stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "trading-ha-bench-"));
  const interval = `${intervalS * 1000}ms`;
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval },
    scrape_configs: [{ job_name: "trading", static_configs: [{ targets: [new URL(exporterUrl).host] }] }],
  };
  await writeFile(join(dir, "prometheus.yml"), JSON.stringify(config));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "prometheus",
    [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: "ignore" },
  );
  return {
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A plain client polling `/probe` of the account every `intervalS`, as a desk's script would. */
function startPoller(exporterUrl: string, intervalS: number): { stop(): void } {
  const timer = setInterval(() => {
    fetch(new URL("probe?target=sim", exporterUrl))
      .then((res) => res.arrayBuffer())
      .catch(() => undefined);
  }, intervalS * 1000);
  return { stop: () => clearInterval(timer) };
}

interface Run {
  label: string;
  minIntervalS: number;
  prometheus: number[];
  poller: boolean;
}

/** The venue's requests during SECONDS of the run's scrapers, counted after a warm-up. */
async function measure(run: Run): Promise<Record<string, number>> {
  const venue = await startSimulatorProcess(["--tick-ms", "0", "--api-key", KEY]);
  const exporter = await startExporterProcess({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: KEY,
    TRADING_COLLATERAL_IDS: "USDC,USDT",
    TRADING_ACCOUNT: "sim",
    TRADING_MIN_COLLECTION_INTERVAL_SECONDS: String(run.minIntervalS),
    // info: startExporterProcess reads the address from the "listening" line.
    TRADING_LOG_LEVEL: "info",
  });
  const servers = await Promise.all(run.prometheus.map((s) => startPrometheus(exporter.url, s / SCALE)));
  const poller = run.poller ? startPoller(exporter.url, POLLER_INTERVAL_S / SCALE) : undefined;
  try {
    // Every scraper has made its first scrape (each starts at its own phase inside its interval).
    await pause((Math.max(...run.prometheus, POLLER_INTERVAL_S) / SCALE) * 1000 + 2000);
    await venue.resetStats();
    await pause(SECONDS * 1000);
    return (await venue.stats()).requests;
  } finally {
    poller?.stop();
    await Promise.all(servers.map((s) => s.stop()));
    await exporter.close();
    await venue.close();
  }
}

async function main(): Promise<void> {
  const minS = MIN_INTERVAL_S / SCALE;
  const s = (x: number) => `${x / SCALE} s`;
  console.log(
    `Scaled ${SCALE}:1 (15 s -> ${s(15)}), ${SECONDS} s of wall time per run, Node ${process.version}; the venue's requests counted by the simulator.`,
  );
  const runs: Run[] = [
    { label: `one Prometheus at ${s(BASELINE_INTERVAL_S)}, interval ${minS} s`, minIntervalS: minS, prometheus: [BASELINE_INTERVAL_S], poller: false },
    {
      label: `Prometheus at ${s(15)} + ${s(10)} + poller at ${s(5)}, interval ${minS} s`,
      minIntervalS: minS,
      prometheus: PROMETHEUS_INTERVALS_S,
      poller: true,
    },
    { label: `Prometheus at ${s(15)} + ${s(10)} + poller at ${s(5)}, interval 0`, minIntervalS: 0, prometheus: PROMETHEUS_INTERVALS_S, poller: true },
  ];
  const rows = [["scrapers", "account_info", "orders_active", "orders_history", "markets", "account_info / one Prometheus"]];
  let baseline = 0;
  for (const run of runs) {
    const requests = await measure(run);
    const accountInfo = requests.account_info ?? 0;
    if (baseline === 0) baseline = accountInfo;
    rows.push([
      run.label,
      String(accountInfo),
      String(requests.orders_active ?? 0),
      String(requests.orders_history ?? 0),
      String(requests.markets ?? 0),
      `${(accountInfo / baseline).toFixed(2)}x`,
    ]);
  }
  console.log(table(rows));
}

await main();
