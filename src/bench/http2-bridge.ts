// What the HTTP/2 bridge costs: the same express answer over HTTP/1.1 (keep-alive) and over HTTP/2 (one session),
// one request at a time, printed as latency percentiles. Run: npm run build && node dist/bench/http2-bridge.js [requests]

import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:http2";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { listen } from "../http/server.js";

const REQUESTS = Number(process.argv[2] ?? "2000");
const SIZES = [1_000, 100_000, 2_000_000];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function timed(requests: number, run: () => Promise<number>): Promise<{ p50: number; p99: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    bytes = await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes };
}

const dir = mkdtempSync(join(tmpdir(), "bench-http2-"));
try {
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1"].concat([
      "-keyout",
      join(dir, "k"),
      "-out",
      join(dir, "c"),
    ]),
    { stdio: "pipe" },
  );
  const [cert, key] = [readFileSync(join(dir, "c")), readFileSync(join(dir, "k"))];
  const app = express();
  app.get("/body/:size", (req, res) => void res.type("text/plain").send("x".repeat(Number(req.params.size))));
  const server = await listen(app, "127.0.0.1", 0, { tls: { cert, key } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: cert });
  const session = connect(server.url, { ca: cert });
  await once(session, "connect");
  const viaHttp1 = (path: string) =>
    new Promise<number>((resolve, reject) => {
      request(new URL(path, server.url), { agent }, (res) => {
        let n = 0;
        res.on("data", (chunk: Buffer) => (n += chunk.length));
        res.on("end", () => resolve(n));
      })
        .on("error", reject)
        .end();
    });
  const viaHttp2 = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const stream = session.request({ ":path": path });
      let n = 0;
      stream.on("data", (chunk: Buffer) => (n += chunk.length));
      stream.on("end", () => resolve(n));
      stream.on("error", reject);
      stream.end();
    });
  console.log(`| body bytes | HTTP/1.1 p50 ms | HTTP/1.1 p99 ms | HTTP/2 p50 ms | HTTP/2 p99 ms | requests each |`);
  console.log(`|---|---|---|---|---|---|`);
  for (const size of SIZES) {
    const path = `/body/${size}`;
    // The 2 MB body (a large scrape) a tenth as often, so a run stays short.
    const runs = size > 1_000_000 ? Math.max(1, Math.floor(REQUESTS / 10)) : REQUESTS;
    const h1 = await timed(runs, () => viaHttp1(path));
    const h2 = await timed(runs, () => viaHttp2(path));
    if (h1.bytes !== size || h2.bytes !== size) throw new Error(`short body: ${h1.bytes} / ${h2.bytes} of ${size}`);
    const f = (ms: number) => ms.toFixed(2);
    console.log(`| ${size} | ${f(h1.p50)} | ${f(h1.p99)} | ${f(h2.p50)} | ${f(h2.p99)} | ${runs} |`);
  }
  session.close();
  agent.destroy();
  await server.close(0);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
