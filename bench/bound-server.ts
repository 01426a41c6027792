// The bound as a server, for the scale benchmark: `/probe?target=NAME` answers account NAME of a simulated
// desk with the bound's scrape (fetch, JSON.parse, a template, gzip), through one shared connection pool.
// Run as the exporter runs (same flags), probed on the same schedule: what no exporter of those accounts can beat.
// argv: venue URL, the desk's key, its number of accounts, and what of the product's own libraries to use: "ky"
// (requests made as the exporter's getBody makes them), "express" (answers served by it), "ky,express", or "" for
// neither; then, optionally, the history's page size when not the exporter's default. Prints {"url":...} on stderr.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deskAccountKey, deskAccountName } from "../tools/simulator/desk.js";
import { VenuePool } from "../src/venue/request.js";
import { Bound } from "./bound.js";

/** The exporter's defaults (config/settings.ts): history pages of 100 up to 1,000 orders, 1,000 active orders. */
const LIMITS = { activeLimit: 1000, historyLimit: 1000, historyPageSize: Number(process.argv[6] || 100) };

const [venue, key, count] = [process.argv[2] ?? "", process.argv[3] ?? "", Number(process.argv[4])];
const libraries = new Set((process.argv[5] ?? "").split(",").filter(Boolean));
const pool = new VenuePool(16);
// The market list read once for every account, as the exporter's cache holds it: a probe reads it for its positions'
// margin and renders none of its families (they are the venue target's).
const markets = (await (await fetch(new URL("v1/public/markets", venue))).json()) as Record<string, unknown>[];
const bounds = new Map<string, Bound>();
for (let i = 0; i < count; i++) {
  const name = deskAccountName(i, count);
  const target = { venue, key: deskAccountKey(key, i, count), collaterals: ["USDC"], account: name, ...LIMITS };
  bounds.set(name, new Bound(target, { client: pool, markets, marketFamilies: false, ky: libraries.has("ky") }));
}

function probe(req: IncomingMessage, res: ServerResponse): void {
  const bound = bounds.get(new URL(req.url ?? "/", "http://bound").searchParams.get("target") ?? "");
  if (bound === undefined) {
    res.writeHead(400).end();
    return;
  }
  bound.scrape().then(
    (body) => res.writeHead(200, { "content-type": "text/plain; version=0.0.4", "content-encoding": "gzip" }).end(body),
    () => res.writeHead(503).end(),
  );
}

// Loaded only when asked for, so the variants without it do not carry its memory.
const express = libraries.has("express") ? (await import("express")).default : undefined;
const server = express === undefined ? createServer(probe) : createServer(express().get("/probe", probe));
server.listen(0, "127.0.0.1", () => {
  process.stderr.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.close();
});
