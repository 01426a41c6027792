// The exporter's own HTTP server alone, as a child process, for the idle-connection flood: answers its RSS and connection counts over IPC.

import { readFileSync } from "node:fs";
import express from "express";
import { SETTINGS } from "../src/config/settings.js";
import { listenAll } from "../src/http/server.js";

const tlsDir = process.env.BENCH_TLS_DIR;
const tls = tlsDir === undefined ? undefined : { key: readFileSync(`${tlsDir}/server.key`), cert: readFileSync(`${tlsDir}/server.crt`) };
const counts = { open: 0, dropped: 0 };
const app = express();
app.get("/", (_req, res) => void res.send("ok"));
const server = await listenAll(app, [{ host: "127.0.0.1", port: 0 }], {
  tls,
  idleTimeoutSeconds: SETTINGS["web.idle_timeout_seconds"].default,
  readTimeoutSeconds: SETTINGS["web.read_timeout_seconds"].default,
  writeTimeoutSeconds: SETTINGS["web.write_timeout_seconds"].default,
  maxConnections: Number(process.env.BENCH_MAX_CONNECTIONS ?? SETTINGS["web.max_connections"].default),
  events: { opened: () => counts.open++, closed: () => counts.open--, dropped: () => counts.dropped++, writeTimedOut: () => undefined },
});
process.send?.({ url: server.url });
process.on("message", (message: string) => {
  if (message === "stats") process.send?.({ rssMiB: process.memoryUsage.rss() / 2 ** 20, ...counts });
  // What a collection gives back once the connections are gone (started with --expose-gc).
  if (message === "gc") {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ rssMiB: process.memoryUsage.rss() / 2 ** 20, ...counts });
  }
  if (message === "stop") void server.close(0).then(() => process.exit(0));
});
