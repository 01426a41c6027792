// Every response of one collection writes the same memory, plain and gzip, whichever scrape it answers, a
// slice at a time: a /metrics scrape served from the last collection adds only the exporter's own metrics of
// its moment. Over HTTP the content-length is the bytes sent, for GET and HEAD, plain and gzip.

import { request } from "node:http";
import { Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { gunzipSync } from "node:zlib";
import type { Response } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { Exporter } from "../src/scrape-answers.js";
import { createApp } from "../src/http/app.js";
import { sendMetrics, WRITE_SLICE_BYTES } from "../src/http/metrics-response.js";
import type { RunningServer } from "../src/http/server.js";
import { listen } from "./helpers/listen.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { Deadline } from "../src/util/deadline.js";
import { ACCOUNT, position, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

const START_MS = 1_700_000_000_000;
/** Enough positions that the venue's part of an answer outweighs the exporter's own metrics many times. */
const POSITIONS = 4_000;

interface Rig {
  venue: TinyVenue;
  exporter: Exporter;
  clock: { now: number };
}

let rig: Rig | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close(100);
  await rig?.exporter.close();
  await rig?.venue.close();
  rig = undefined;
  server = undefined;
});

async function start(): Promise<Rig> {
  const positions = Array.from({ length: POSITIONS }, (_, i) => position(`M-${i}`));
  const account = { collateralBalance: "1", availableMargin: "1", totalInvested: "0", totalMargin: "1", totalUnrealizedPnl: "0", positions };
  const venue = await startTinyVenue({ account });
  const config = configFromEnv({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "acct",
    TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "10",
  });
  const clock = { now: START_MS };
  const logger = createLogger("error", new Writable({ write: (_c, _e, done) => done() }));
  const exporter = new Exporter(config, logger, new SelfMetrics({ defaultMetrics: false }), () => clock.now);
  rig = { venue, exporter, clock };
  return rig;
}

/** What sendMetrics hands the response: its headers and every chunk written, as given; `done` once it ended. */
/** A response recorder whose request accepts gzip or not. */
function recorded(gzip = false): { res: Response; headers: Record<string, string>; chunks: Buffer[]; done: Promise<void> } {
  const headers: Record<string, string> = {};
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const res = Object.assign(sink, {
    req: { method: "GET", acceptsEncodings: () => (gzip ? "gzip" : false) },
    status: () => res,
    set(name: string | Record<string, string>, value?: string) {
      Object.assign(headers, typeof name === "string" ? { [name]: value } : name);
      return res;
    },
  });
  return { res: res as unknown as Response, headers, chunks, done: finished(sink) };
}

/** The bytes `a` wrote from memory that `b` wrote from too: the same ArrayBuffer under both. */
function sharedBytes(a: Buffer[], b: Buffer[]): number {
  const memory = new Set(b.map((chunk) => chunk.buffer));
  return a.filter((chunk) => memory.has(chunk.buffer)).reduce((sum, chunk) => sum + chunk.byteLength, 0);
}
const bytes = (chunks: Buffer[]): number => chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);

describe.each([
  ["/metrics", {}],
  ["/probe", { accounts: ["acct"], marketFamilies: false }],
])("two responses of one collection of %s", (_path, options) => {
  it.each([
    ["plain", false],
    ["gzip", true],
  ])("write the same memory for the venue's part (%s), and each body is the whole answer with its length", async (_form, gzip) => {
    const r = await start();
    const first = await r.exporter.metrics(new Deadline(5), options);
    // Inside the minimum interval and after the render: /metrics reads the exporter's own metrics afresh.
    r.clock.now = START_MS + 5_000;
    const second = await r.exporter.metrics(new Deadline(5), options);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);

    const [a, b] = [recorded(gzip), recorded(gzip)];
    sendMetrics(a.res, first);
    sendMetrics(b.res, second);
    await Promise.all([a.done, b.done]);
    // The venue's part, shared, is most of each body; what is not shared is the exporter's own metrics.
    expect(sharedBytes(b.chunks, a.chunks)).toBeGreaterThan(0.8 * bytes(b.chunks));

    for (const { headers, chunks } of [a, b]) {
      const body = Buffer.concat(chunks);
      expect(Number(headers["content-length"])).toBe(body.byteLength);
      expect(headers["content-encoding"]).toBe(gzip ? "gzip" : undefined);
      const text = (gzip ? gunzipSync(body) : body).toString("utf8");
      expect(text).toContain(`trading_position_size{account="acct",collateral_id="USDC",market_id="M-${POSITIONS - 1}"`);
      expect(text.includes("trading_exporter_upstream_requests_total")).toBe(_path === "/metrics");
    }
  });
});

describe("an answer written both ways", () => {
  it("decodes from gzip to its plain bytes exactly, and the plain bytes are shared again after the gzip is made", async () => {
    const r = await start();
    const answer = await r.exporter.metrics(new Deadline(5));
    const [plain, zipped, again] = [recorded(), recorded(true), recorded()];
    sendMetrics(plain.res, answer);
    sendMetrics(zipped.res, answer);
    sendMetrics(again.res, answer);
    await Promise.all([plain.done, zipped.done, again.done]);
    expect(gunzipSync(Buffer.concat(zipped.chunks)).equals(Buffer.concat(plain.chunks))).toBe(true);
    // Still held by a response (this test's), the plain bytes are the same ones.
    expect(sharedBytes(again.chunks, plain.chunks)).toBeGreaterThan(0.8 * bytes(again.chunks));
  });

  it("is handed to a response a slice at a time, so TLS, which encrypts what it is handed, holds no copy of it all", async () => {
    const r = await start();
    const answer = await r.exporter.metrics(new Deadline(5));
    const out = recorded();
    sendMetrics(out.res, answer);
    await out.done;
    expect(Math.max(...out.chunks.map((chunk) => chunk.byteLength))).toBeLessThanOrEqual(WRITE_SLICE_BYTES);
    expect(bytes(out.chunks)).toBe(Number(out.headers["content-length"]));
  });
});

/** A raw request (fetch would decode gzip itself): status, headers and the undecoded body. */
function raw(url: URL, method: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

describe("over HTTP", () => {
  it.each(["/metrics", "/probe?target=acct"])("%s: GET's content-length is the bytes sent, plain and gzip; HEAD says the same and sends none", async (path) => {
    const r = await start();
    const logger = createLogger("error", new Writable({ write: (_c, _e, done) => done() }));
    server = await listen(
      createApp({ exporter: r.exporter, logger, timeouts: { defaultTimeoutSeconds: 5, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 10 } }),
      "127.0.0.1",
      0,
    );
    const url = new URL(path, server.url);
    // The clock stands still: every request is served the one answer, so the lengths compare.
    for (const encoding of ["identity", "gzip"]) {
      const get = await raw(url, "GET", { "accept-encoding": encoding });
      expect(Number(get.headers["content-length"])).toBe(get.body.byteLength);
      const text = (encoding === "gzip" ? gunzipSync(get.body) : get.body).toString("utf8");
      expect(text).toMatch(/^trading_up\{account="acct"\} 1$/m);
      const head = await raw(url, "HEAD", { "accept-encoding": encoding });
      expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
      expect(head.body.byteLength).toBe(0);
    }
  });
});
