// rate_limit of the web config: the toolkit's token bucket, its YAML (Go durations), and 429s counted, with a real client.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { listen } from "./helpers/listen.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { TokenBucket, webGuards } from "../src/http/toolkit/guards.js";
import { goDurationMs, loadWebConfig, parseWebConfig } from "../src/http/toolkit/web-config.js";

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "web-rate-limit-"));
});
afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

const parse = (text: string) => parseWebConfig(text, join(dir, "web.yml"));

function loadError(text: string): string {
  const path = join(dir, "bad.yml");
  writeFileSync(path, text);
  try {
    loadWebConfig(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the web config loaded");
}

describe("Go durations", () => {
  it.each([
    ["0", 0],
    ["1s", 1_000],
    ["250ms", 250],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    [".5s", 500],
    ["1h2m3s4ms", 3_723_004],
    ["100us", 0.1],
    ["100µs", 0.1],
    ["2000000ns", 2],
  ])("reads %s as %d ms", (text, ms) => {
    expect(goDurationMs(text)).toBeCloseTo(ms, 9);
  });

  it.each(["", "1", "s", "1 s", "-1s", "+1s", "1d", "1sec", "1s ", "."])("refuses %j", (text) => {
    expect(goDurationMs(text)).toBeUndefined();
  });
});

describe("rate_limit in the web config", () => {
  it("reads interval as a Go duration (a bare integer is nanoseconds, as Go's YAML reads it) and burst", () => {
    expect(parse("rate_limit:\n  interval: 1s\n  burst: 20\n").rateLimit).toEqual({ intervalMs: 1000, burst: 20 });
    expect(parse('rate_limit:\n  interval: "1m30s"\n  burst: 1\n').rateLimit).toEqual({ intervalMs: 90_000, burst: 1 });
    expect(parse("rate_limit:\n  interval: 2000000000\n  burst: 3\n").rateLimit).toEqual({ intervalMs: 2000, burst: 3 });
  });

  it.each([
    ["absent", ""],
    ["interval 0", "rate_limit:\n  interval: 0\n  burst: 5\n"],
    ['interval "0s"', "rate_limit:\n  interval: 0s\n  burst: 5\n"],
    ["burst 0", "rate_limit:\n  interval: 1s\n  burst: 0\n"],
    ["burst absent", "rate_limit:\n  interval: 1s\n"],
    ["interval absent", "rate_limit:\n  burst: 5\n"],
  ])("is off when %s", (_name, text) => {
    expect(parse(text).rateLimit).toBeUndefined();
  });

  it.each([
    [
      "interval not a duration",
      "rate_limit:\n  interval: 1 second\n  burst: 5\n",
      'web config: rate_limit.interval: expected a duration such as "1s", "250ms" or "1m30s" (0 turns the limit off)',
    ],
    [
      "interval negative",
      "rate_limit:\n  interval: -1s\n  burst: 5\n",
      'web config: rate_limit.interval: expected a duration such as "1s", "250ms" or "1m30s" (0 turns the limit off)',
    ],
    ["burst negative", "rate_limit:\n  interval: 1s\n  burst: -1\n", "web config: rate_limit.burst: must be at least 0"],
    ["burst not an integer", "rate_limit:\n  interval: 1s\n  burst: 1.5\n", "web config: rate_limit.burst: expected int"],
    ["an unknown key", "rate_limit:\n  interval: 1s\n  bursts: 5\n", "web config: rate_limit.bursts: unknown key (did you mean burst?)"],
  ])("refuses %s with one line naming the key", (_name, text, message) => {
    expect(loadError(text)).toBe(message);
  });
});

describe("the token bucket", () => {
  it("starts full, gives one token per interval, and never holds more than burst", () => {
    let now = 0;
    const bucket = new TokenBucket({ intervalMs: 1000, burst: 3 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.waitMs()).toBe(1000);
    now = 500;
    expect(bucket.take()).toBe(false);
    expect(bucket.waitMs()).toBe(500);
    now = 1000;
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
    now = 60_000;
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });
});

describe("a web config with rate_limit", () => {
  it("answers 429 past the burst, before basic auth and with the configured headers, and counts each", async () => {
    const hash = bcrypt.hashSync("pw", 4);
    const config = parse(
      `rate_limit:\n  interval: 1h\n  burst: 2\nbasic_auth_users:\n  prom: "${hash}"\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n`,
    );
    const self = new SelfMetrics({ defaultMetrics: false });
    const app = express();
    for (const guard of webGuards(config, self.guards)) app.use(guard);
    app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
    const running = await listen(app, "127.0.0.1", 0);
    const counted = async () => (await self.registry.getSingleMetric("trading_exporter_http_requests_rate_limited_total")?.get())?.values[0]?.value;
    try {
      const auth = { authorization: `Basic ${Buffer.from("prom:pw").toString("base64")}` };
      const url = new URL("/metrics", running.url);
      expect(await counted()).toBe(0);
      expect((await fetch(url, { headers: auth })).status).toBe(200);
      expect((await fetch(url)).status).toBe(401);
      const refused = await fetch(url, { headers: auth });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("3600");
      expect(refused.headers.get("x-frame-options")).toBe("deny");
      expect(await refused.text()).toBe("429 Too Many Requests: over the web config's rate_limit, retry shortly\n");
      // Without credentials too: the bucket is over all requests, and a refused one costs no bcrypt.
      expect((await fetch(url)).status).toBe(429);
      expect(await counted()).toBe(2);
    } finally {
      await running.close(0);
    }
  });

  it("passes every request when it is off", async () => {
    const self = new SelfMetrics({ defaultMetrics: false });
    const app = express();
    for (const guard of webGuards(parse("rate_limit:\n  interval: 0\n  burst: 1\n"), self.guards)) app.use(guard);
    app.get("/", (_req, res) => void res.send("ok"));
    const running = await listen(app, "127.0.0.1", 0);
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(running.url)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await running.close(0);
    }
  });
});
