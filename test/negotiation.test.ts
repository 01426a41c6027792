// Content negotiation: gzip when accepted (one gzip member, which browsers, curl and Python's zlib
// read whole), the Prometheus text format whatever the Accept header prefers; both pass promtool
// check metrics.

import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import express from "express";
import { sendMetrics } from "../src/http/metrics-response.js";
import { listen } from "./helpers/listen.js";
import { Answer, SharedBody } from "../src/metrics/answer.js";
import { parseExposition } from "./helpers/exposition.js";
import { curlCompressed, pythonFirstMember } from "./helpers/gzip-clients.js";
import { checkMetrics } from "./helpers/promtool.js";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** A raw GET (fetch would decode gzip itself): status, headers and the undecoded body. */
function raw(url: URL, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

const stable = (text: string) =>
  text
    .split("\n")
    .filter(
      (l) =>
        l.startsWith("trading_") &&
        !l.startsWith("trading_exporter_") &&
        !l.startsWith("trading_scrape_duration") &&
        !l.startsWith("trading_collection_timestamp") &&
        !l.startsWith("trading_market_list_age"),
    )
    .join("\n");

describe("/metrics content negotiation", () => {
  it("gzips when accepted, as one member that a single-member decoder reads whole", async () => {
    stack = await startStack();
    pinOutputs(stack);
    const url = new URL("metrics", stack.server.url);
    const plain = await raw(url, { "accept-encoding": "identity" });
    const zipped = await raw(url, { "accept-encoding": "gzip, deflate" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(Number(zipped.headers["content-length"])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    const decoded = pythonFirstMember(zipped.body);
    expect(decoded).toMatchObject({ leftOver: 0, complete: true });
    expect(decoded.text.equals(plain.body)).toBe(true);
    expect(checkMetrics(decoded.text.toString())).toBe("");
  });

  it("answers the text format to a scraper that prefers OpenMetrics, as Prometheus does, and promtool accepts it", async () => {
    stack = await startStack();
    const res = await raw(new URL("metrics", stack.server.url), {
      accept: "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
    });
    expect(res.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.vary).toBe("accept-encoding");
    const text = res.body.toString();
    expect(text).not.toContain("# EOF");
    expect(text).toMatch(/^# TYPE trading_exporter_upstream_requests_total counter$/m);
    expect(checkMetrics(text)).toBe("");
    expect(checkMetrics(text.replace(/^(# (?:HELP|TYPE) trading_account_margin_ratio) .*$/m, "$1"))).not.toBe("");
    expect(parseExposition(text).some((s) => s.name === "trading_account_margin_ratio")).toBe(true);
  });

  it("serves a second scrape of unchanged data from the shared body, byte for byte", async () => {
    stack = await startStack();
    const url = new URL("metrics", stack.server.url);
    const first = (await raw(url, {})).body.toString();
    const second = (await raw(url, {})).body.toString();
    expect(stable(second)).toBe(stable(first));
  });
});

/**
 * Every scrape after the first of a path gets the first's output, as scrapes that join one
 * collection do: the identity and the compressed answers then compare byte for byte.
 */
function pinOutputs(stack: Stack): void {
  const exporter = stack.exporter;
  const metrics = exporter.metrics.bind(exporter);
  const pinned = new Map<string, Promise<Answer>>();
  exporter.metrics = (deadline, options = {}) => {
    const key = JSON.stringify(options.accounts ?? null);
    let output = pinned.get(key);
    if (output === undefined) {
      output = metrics(deadline, options);
      pinned.set(key, output);
    }
    return output;
  };
}

describe("single-member gzip decoders read the whole answer", () => {
  // Families that come after the head: with concatenated members these were what clients lost.
  const LATE_FAMILIES = ["trading_account_total_margin", "trading_account_margin_ratio", "trading_position_size"];

  it.each(["/metrics", "/probe?target=sim"])("%s: python zlib.decompressobj(31) and curl --compressed get the identity answer byte for byte", async (path) => {
    stack = await startStack();
    pinOutputs(stack);
    const url = new URL(path, stack.server.url);
    const plain = await raw(url, { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    const text = plain.body.toString();
    for (const family of LATE_FAMILIES) expect(text).toMatch(new RegExp(`^${family}\\{`, "m"));
    const zipped = await raw(url, { "accept-encoding": "gzip" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    const python = pythonFirstMember(zipped.body);
    expect(python).toMatchObject({ leftOver: 0, complete: true });
    expect(python.text.equals(plain.body)).toBe(true);
    const curl = await curlCompressed(url.href);
    expect(curl.equals(plain.body)).toBe(true);
  });
});

describe("negotiation rules", () => {
  it.each([
    ["gzip", true],
    ["gzip;q=0", false],
    ["deflate, gzip;q=0.5", true],
    ["*", true],
    ["identity", false],
    [undefined, false],
  ])("Accept-Encoding %j -> gzip %s", async (header, expected) => {
    const app = express().get("/", (_req, res) => sendMetrics(res, new Answer(new SharedBody("x 1\n"))));
    const server = await listen(app, "127.0.0.1", 0);
    try {
      const res = await raw(new URL("/", server.url), header === undefined ? {} : { "accept-encoding": header });
      expect(res.headers["content-encoding"] === "gzip").toBe(expected);
    } finally {
      await server.close(100);
    }
  });
});
