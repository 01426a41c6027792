// Floods the exporter's own server with idle connections that never send a byte (no ClientHello over TLS), in rounds,
// and prints its RSS before, during and after each round and how long the server took to close them all.

import { execFileSync, fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shippedNodeFlags } from "./exporter-process.js";

const CONNECTIONS = Number(process.env.BENCH_IDLE_CONNECTIONS ?? "10000");
const ROUNDS = Number(process.env.BENCH_IDLE_ROUNDS ?? "3");
const CHILD = new URL("./idle-server-process.js", import.meta.url).pathname;

interface Stats {
  rssMiB: number;
  open: number;
  dropped: number;
}

/** Opens `n` connections that never write; resolves when all are connected, and `closed` when the server closed them all. */
async function flood(port: number, n: number): Promise<{ closed: Promise<void> }> {
  const connected: Array<Promise<unknown>> = [];
  const closed: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i++) {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => undefined);
    // Reading: a socket sees the server's close only while it reads.
    socket.on("data", () => undefined);
    connected.push(Promise.race([once(socket, "connect"), once(socket, "close")]));
    closed.push(once(socket, "close"));
    // A few hundred at a time, so the listen backlog is not what refuses them.
    if (i % 200 === 199) await Promise.all(connected.slice(-200));
  }
  await Promise.all(connected);
  return { closed: Promise.all(closed).then(() => undefined) };
}

async function run(label: string, env: Record<string, string>): Promise<void> {
  // The runtime settings `npm start` uses, and gc() to show what a collection gives back.
  const child = fork(CHILD, { env: { ...process.env, ...env }, execArgv: [...shippedNodeFlags(), "--expose-gc"] });
  const [{ url }] = (await once(child, "message")) as [{ url: string }];
  const stats = async (what = "stats"): Promise<Stats> => {
    child.send(what);
    return ((await once(child, "message")) as [Stats])[0];
  };
  const port = Number(new URL(url).port);
  const before = await stats();
  console.log(`\n${label} (max_connections ${env.BENCH_MAX_CONNECTIONS}), ${CONNECTIONS} idle connections a round`);
  console.log("| round | RSS before MiB | RSS with them open MiB | open | dropped | all closed after s | RSS after MiB | RSS after a GC MiB |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (let round = 1; round <= ROUNDS; round++) {
    const start = await stats();
    const started = performance.now();
    const { closed } = await flood(port, CONNECTIONS);
    const during = await stats();
    await closed;
    const seconds = (performance.now() - started) / 1000;
    const after = await stats();
    const collected = await stats("gc");
    console.log(
      `| ${round} | ${start.rssMiB.toFixed(0)} | ${during.rssMiB.toFixed(0)} | ${during.open} | ${during.dropped} | ${seconds.toFixed(1)} | ${after.rssMiB.toFixed(0)} | ${collected.rssMiB.toFixed(0)} |`,
    );
  }
  console.log(`RSS at start ${before.rssMiB.toFixed(0)} MiB`);
  child.send("stop");
  await once(child, "exit");
}

const dir = mkdtempSync(join(tmpdir(), "idle-bench-"));
try {
  const subject = ["-subj", "/CN=127.0.0.1", "-days", "1", "-keyout", join(dir, "server.key"), "-out", join(dir, "server.crt")];
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", ...subject], { stdio: "pipe" });
  const cap = String(CONNECTIONS + 100);
  await run("TLS, no ClientHello", { BENCH_TLS_DIR: dir, BENCH_MAX_CONNECTIONS: cap });
  await run("plain HTTP, no request", { BENCH_MAX_CONNECTIONS: cap });
  await run("TLS, no ClientHello, default cap", { BENCH_TLS_DIR: dir, BENCH_MAX_CONNECTIONS: "512" });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
