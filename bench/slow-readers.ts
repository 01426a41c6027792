// `npm run bench:slow-readers`: the exporter with its default settings (connection cap, write timeout, minimum
// collection interval), as the image runs it, on a venue whose `/metrics` is about 20 MB of text. 200 clients
// ask for it without gzip and read a chunk now and then; the exporter's RSS is sampled before and while they
// hang, and a client reading at a normal pace meanwhile must get the whole body. Goal: the 200 add at most
// 100 MB. BENCH_BASE=DIR (another build's dist folder, or its checkout) runs that build the same way after this
// one. BENCH_TLS=1 serves and reads over TLS (a web config with a self-signed certificate). BENCH_SLOW_READERS
// (200) and BENCH_ACCOUNTS (16 of the simulator's large profile) change the run; a run stops opening readers
// past BENCH_RSS_CAP_MB (8000) of exporter RSS. A benchmark, not a test.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { request as tlsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { benchNodeArgs, startExporterProcess } from "./exporter-process.js";
import { rssMB } from "./measure.js";
import { KEY, positiveInteger, round1, table } from "./shared.js";
import { type SimulatorProcess, startSimulatorProcess } from "./simulator-process.js";

const THIS = new URL("../../dist", import.meta.url).pathname;
const GOAL_MB = 100;
/** Below the default 40 scrapes in flight: a reader is let in, answered and paused before the next batch asks. */
const BATCH = 20;
/** Each slow reader takes one chunk this often: about 30 KB/s, ten minutes for the whole answer. */
const TRICKLE_MS = 2_000;
const HANG_MS = 15_000;
const SAMPLE_MS = 100;
/** The exporter's default minimum collection interval: the warm-up waits it out once, to collect twice. */
const MIN_INTERVAL_MS = 12_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Whole {
  status: number;
  contentLength: number;
  bytes: number;
  seconds: number;
}

/** A GET read as fast as it comes (a self-signed certificate accepted). */
function readWhole(url: URL, encoding = "identity"): Promise<Whole> {
  const started = performance.now();
  const get = url.protocol === "https:" ? tlsRequest : request;
  return new Promise((resolve, reject) => {
    get(url, { agent: false, rejectUnauthorized: false, headers: { "accept-encoding": encoding } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.byteLength));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentLength: Number(res.headers["content-length"]), bytes, seconds: (performance.now() - started) / 1000 }),
      );
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

interface SlowReader {
  socket: Socket;
  /** The status line's code once the first chunk came, 0 if the connection closed first. */
  status: Promise<number>;
}

/** Asks for /metrics without gzip, takes the first chunk (the status line), then one chunk every TRICKLE_MS. */
function slowReader(port: number, tls: boolean): SlowReader {
  const socket = tls ? tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false }) : connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  const status = new Promise<number>((resolve) => {
    socket.once("data", (chunk: Buffer) => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1", 0, 20))?.[1] ?? 0)));
    socket.once("close", () => resolve(0));
  });
  socket.on("data", () => socket.pause());
  const trickle = setInterval(() => socket.resume(), TRICKLE_MS);
  socket.once("close", () => clearInterval(trickle));
  socket.write("GET /metrics HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: identity\r\n\r\n");
  return { socket, status };
}

interface Setup {
  venue: SimulatorProcess;
  configFile: string;
  /** The web config serving TLS, when BENCH_TLS=1. */
  webConfigFile: string | undefined;
  readers: number;
  capMB: number;
}

async function run(label: string, dist: string, { configFile, webConfigFile, readers, capMB }: Setup): Promise<string[]> {
  const web = webConfigFile === undefined ? {} : { TRADING_WEB_CONFIG_FILE: webConfigFile };
  const exporter = await startExporterProcess({ TRADING_CONFIG_FILE: configFile, ...web }, benchNodeArgs(), join(dist, "main.js"));
  const sockets: Socket[] = [];
  try {
    const url = new URL("metrics", exporter.url);
    const port = Number(url.port);
    // Two collections, each read plain and gzipped, so the heap is past its first growth.
    const first = await readWhole(url);
    await readWhole(url, "gzip");
    await pause(MIN_INTERVAL_MS + 500);
    const warm = await readWhole(url);
    await readWhole(url, "gzip");
    // The readers and the normal one below come inside this collection's minimum interval: they measure the
    // answer's readers, not a new collection.
    const before = rssMB(exporter.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMB(exporter.pid));
    }, SAMPLE_MS);
    const statuses: number[] = [];
    let capped = false;
    for (let i = 0; i < readers && !capped; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, readers - i) }, () => slowReader(port, webConfigFile !== undefined));
      sockets.push(...batch.map((r) => r.socket));
      statuses.push(...(await Promise.all(batch.map((r) => r.status))));
      capped = rssMB(exporter.pid) > capMB;
    }
    const normal = await readWhole(url);
    await pause(HANG_MS);
    clearInterval(sampler);
    const open = sockets.filter((s) => !s.destroyed).length;
    const ok = statuses.filter((s) => s === 200).length;
    const whole = normal.status === 200 && normal.bytes === normal.contentLength && normal.bytes >= warm.bytes * 0.9;
    const delta = peak - before;
    return [
      label,
      `${round1(first.bytes / 1e6)} MB in ${round1(first.seconds)} s`,
      `${ok}/${statuses.length} (${open} open)${capped ? ` stopped over ${capMB} MB` : ""}`,
      Math.round(before).toString(),
      Math.round(peak).toString(),
      Math.round(delta).toString(),
      `${normal.status}, ${normal.bytes}/${normal.contentLength} bytes in ${round1(normal.seconds)} s: ${whole ? "whole" : "CUT"}`,
      delta <= GOAL_MB && ok === readers && whole ? "met" : "MISSED",
    ];
  } finally {
    for (const socket of sockets) socket.destroy();
    await exporter.close();
  }
}

/** A dist folder, or a checkout whose dist folder is built. */
function distOf(dir: string): string {
  return existsSync(join(dir, "main.js")) ? dir : join(dir, "dist");
}

async function main(): Promise<void> {
  const readers = positiveInteger("BENCH_SLOW_READERS", 200);
  const accounts = positiveInteger("BENCH_ACCOUNTS", 16);
  const capMB = positiveInteger("BENCH_RSS_CAP_MB", 8000);
  const base = process.env.BENCH_BASE;
  const dir = mkdtempSync(join(tmpdir(), "slow-readers-"));
  const venue = await startSimulatorProcess([
    ...["--profile", "large", "--accounts", String(accounts), "--collateral", "USDC:detailed"],
    ...["--tick-ms", "0", "--api-key", KEY],
  ]);
  try {
    const configFile = join(dir, "config.yml");
    const desk = { accounts, apiKey: KEY, apiKeyHeader: "X-Api-Key", collaterals: [{ id: "USDC", shape: "detailed" as const }] };
    writeFileSync(configFile, exporterConfigYaml(desk, venue.url.replace(/\/$/, "")));
    let webConfigFile: string | undefined;
    if (process.env.BENCH_TLS === "1") {
      const subject = ["-subj", "/CN=127.0.0.1", "-days", "1", "-keyout", join(dir, "server.key"), "-out", join(dir, "server.crt")];
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", ...subject], { stdio: "pipe" });
      webConfigFile = join(dir, "web-config.yml");
      writeFileSync(webConfigFile, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
    }
    const setup: Setup = { venue, configFile, webConfigFile, readers, capMB };
    const over = webConfigFile === undefined ? "HTTP" : "TLS";
    console.log(
      `${readers} slow readers of /metrics over ${over} without gzip (${accounts} large accounts), each a chunk every ${TRICKLE_MS / 1000} s, for ${HANG_MS / 1000} s; default settings`,
    );
    const rows = [
      ["build", "answer", "readers answered 200", "RSS before MB", "peak MB", "delta MB", "normal reader meanwhile", `goal: delta ≤ ${GOAL_MB} MB`],
    ];
    rows.push(await run(`this (${THIS})`, THIS, setup));
    if (base !== undefined && base !== "") rows.push(await run(`base (${distOf(base)})`, distOf(base), setup));
    console.log(table(rows));
  } finally {
    await venue.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
