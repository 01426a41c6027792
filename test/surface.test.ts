// The exporter's own HTTP surface: the whole exposition lint-clean (runtime metrics included), /probe a
// pure target, nosniff on every answer, the inbound header timeout held near its value, and paths as
// exact as Go's ServeMux makes them.

import { connect } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { LOGGED_PATH_CHARS } from "../src/http/app.js";
import { listen } from "./helpers/listen.js";
import { NONCONFORMING_DEFAULTS } from "../src/metrics/self.js";
import { checkMetrics } from "./helpers/promtool.js";
import { simEnv, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ defaultMetrics: true });
});
afterAll(async () => {
  await stack.close();
});

const names = (text: string) => new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));

describe("promtool check metrics on the whole exposition", () => {
  it("passes on a full /metrics scrape, process and Node.js metrics included", async () => {
    const text = await stack.scrape();
    const families = names(text);
    expect(families).toContain("process_cpu_seconds_total");
    expect(families).toContain("nodejs_active_handles");
    expect(families).toContain("nodejs_heap_size_used_bytes");
    for (const dropped of NONCONFORMING_DEFAULTS) expect(families).not.toContain(dropped);
    expect(checkMetrics(text)).toBe("");
  });

  it("passes on a /probe scrape", async () => {
    const res = await stack.get("/probe?target=sim");
    expect(res.status).toBe(200);
    expect(checkMetrics(await res.text())).toBe("");
  });
});

describe("/exporter-metrics: the exporter's own metrics alone", () => {
  it("serves the process, runtime and trading_exporter_* series, no account's or market's, and calls no venue endpoint", async () => {
    await stack.scrape(); // a collection first, so the exporter's counters have something to say
    stack.venue.resetStats();
    const res = await stack.get("/exporter-metrics");
    expect(res.status).toBe(200);
    const text = await res.text();
    const families = [...names(text)];
    expect(families).toEqual(expect.arrayContaining(["process_cpu_seconds_total", "trading_exporter_build_info", "trading_exporter_upstream_requests_total"]));
    expect(families.filter((n) => !/^(process_|nodejs_|trading_exporter_)/.test(n))).toEqual([]);
    expect(Object.values(stack.venue.stats().requests).reduce((a, b) => a + b, 0)).toBe(0);
    expect(checkMetrics(text)).toBe("");
  });

  it("answers the text format and gzip as /metrics does, to a scraper that prefers OpenMetrics too", async () => {
    const res = await stack.get("/exporter-metrics", { accept: "application/openmetrics-text;version=1.0.0", "accept-encoding": "gzip" });
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(names(await res.text())).toContain("trading_exporter_build_info");
  });
});

describe("/probe is a pure target", () => {
  it("serves the account's series and the probe's own success and duration, nothing of the process nor of the venue's market list", async () => {
    const text = await (await stack.get("/probe?target=sim")).text();
    const families = [...names(text)];
    expect(families.filter((n) => /^(process_|nodejs_|trading_exporter_)/.test(n))).toEqual([]);
    expect(families).toEqual(
      expect.arrayContaining(["trading_up", "trading_scrape_success", "trading_scrape_duration_seconds", "trading_account_collateral_balance"]),
    );
    // The market list is the venue's, a target of its own.
    expect(families.some((n) => n.startsWith("trading_market_"))).toBe(false);
    expect([...names(await (await stack.get("/probe?target=venue%2Fmarkets")).text())].some((n) => n.startsWith("trading_market_"))).toBe(true);
    // /metrics still has them.
    expect([...names(await stack.scrape())].some((n) => n.startsWith("trading_exporter_"))).toBe(true);
  });
});

describe("the landing page (the status page)", () => {
  it("links every path it lists, the runbooks, each account's debug probe and its stylesheet included, and each link answers 200", async () => {
    const html = await (await stack.get("/")).text();
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
    expect(links).toEqual(
      expect.arrayContaining(["metrics", "sd", "runbooks/", "probe?target=sim", "probe?target=sim&debug=true", "-/healthy", "-/ready", "status.css"]),
    );
    // Relative, so they follow a route prefix or a proxy's path; the page is at "/" here.
    for (const link of links) {
      const res = await stack.get(`/${link}`);
      await res.arrayBuffer();
      expect(res.status, link).toBe(200);
    }
  });
});

describe("X-Content-Type-Options: nosniff", () => {
  it.each(["/metrics", "/probe?target=sim", "/probe?target=sim&debug=true", "/probe?target=nope", "/sd", "/-/healthy", "/", "/nowhere"])(
    "is on the answer to %s",
    async (path) => {
      const res = await stack.get(path);
      await res.arrayBuffer();
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    },
  );
});

describe("inbound header timeout", () => {
  it("closes a connection whose headers never finish within about a second of the timeout", async () => {
    // 1 s instead of 10 s so the test is short; Node's default check every 30 s would hold it ~30 s.
    const app = express();
    app.get("/", (_req, res) => void res.send("ok"));
    const server = await listen(app, "127.0.0.1", 0, { headersTimeoutMs: 1_000 });
    try {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      const started = performance.now();
      socket.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      socket.on("data", () => undefined);
      const closedAfter = await new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now() - started)));
      expect(closedAfter).toBeGreaterThanOrEqual(900);
      expect(closedAfter).toBeLessThan(8_000);
    } finally {
      await server.close(100);
    }
  }, 40_000);
});

describe("paths are exact, as in Go's ServeMux", () => {
  let withReload: Stack;
  beforeAll(async () => {
    withReload = await startStack({
      source: (url) => configFromEnv(simEnv(url, { TRADING_COLLATERAL_IDS: "USDC" })),
    });
  });
  afterAll(async () => {
    await withReload.close();
  });

  it("serves every route at its own path", async () => {
    const routes = ["/", "/metrics", "/probe?target=sim", "/probe?target=sim&debug=true", "/sd", "/runbooks/", "/runbooks/TradingEndpointFailing"];
    for (const path of [...routes, "/-/healthy", "/-/ready"]) {
      const res = await withReload.get(path);
      await res.arrayBuffer();
      expect(res.status, path).toBe(200);
    }
    const reload = await withReload.reload();
    expect(await reload.text()).toBe("configuration reloaded\n");
    expect(reload.status).toBe(200);
    // /runbooks without its slash still leads to the list, as ServeMux redirects to a subtree's root.
    const bare = await fetch(new URL("/runbooks", withReload.server.url), { redirect: "manual" });
    expect([bare.status, bare.headers.get("location")]).toEqual([301, "/runbooks/"]);
  });

  it.each([
    "/METRICS",
    "/Metrics",
    "/metrics/",
    "/sd/",
    "/-/healthy/",
    "/-/Ready",
    "/Runbooks/",
    "/runbooks/TradingEndpointFailing/",
    "/runbooks/tradingendpointfailing",
  ])("answers 404 to %s", async (path) => {
    const res = await withReload.get(path);
    await res.arrayBuffer();
    expect(res.status).toBe(404);
  });

  it("answers a malformed escape in the path with 400 and no error-level line, quoting a bounded part of the path", async () => {
    const before = withReload.logs.length;
    const long = `/runbooks/${"a".repeat(5_000)}%zz`;
    for (const path of ["/runbooks/%zz", long]) {
      const res = await withReload.get(path);
      expect(await res.text()).toBe("bad request: malformed percent-escape in the path\n");
      expect(res.status).toBe(400);
    }
    const lines = withReload.logs.slice(before).map((l) => JSON.parse(l) as { level: string; path?: string });
    expect(lines.filter((l) => l.level === "WARN" || l.level === "ERROR")).toEqual([]);
    const paths = lines.flatMap((l) => (l.path === undefined ? [] : [l.path]));
    expect(paths).toHaveLength(2);
    for (const path of paths) expect(path.length).toBeLessThanOrEqual(LOGGED_PATH_CHARS + 40);
    expect(paths[1]).toContain("(5013 characters)");
  });
});
