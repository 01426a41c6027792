// The process's life: start-up errors, graceful stop on SIGTERM/SIGINT, and one bad request that
// answers 500 while the process goes on.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "../src/config/load.js";
import { Exporter } from "../src/exporter.js";
import { createApp } from "../src/http/app.js";
import { listen } from "../src/http/server.js";
import { createLogger } from "../src/log.js";
import { Body } from "../src/metrics/body.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/server.js";
import { runExporter, startExporterChild } from "./helpers/child.js";

let venue: RunningSimulator | undefined;
afterEach(async () => {
  await venue?.close();
  venue = undefined;
});

describe("start-up", () => {
  it("stops with one line naming the bad variable and exit code 1", async () => {
    const result = await runExporter({ TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_COLLATERAL_IDS: "USDC" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("trading-exporter: configuration error: TRADING_API_KEY or TRADING_API_KEY_FILE: required\n");
  });

  it("never prints the secret of a bad base URL", async () => {
    const result = await runExporter({
      TRADING_BASE_URL: "https://user:s3cr3t-in-url@venue",
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain("s3cr3t-in-url");
  });
});

describe("an address already in use", () => {
  it.each(["main.js", "demo.js"])("stops dist/%s with our own one line, not Node's message", async (program) => {
    const taken = createServer();
    taken.listen(0, "127.0.0.1");
    await once(taken, "listening");
    try {
      const port = (taken.address() as { port: number }).port;
      const env = {
        PATH: process.env.PATH ?? "",
        TRADING_LISTEN_ADDRESS: `127.0.0.1:${port}`,
        TRADING_BASE_URL: "http://127.0.0.1:1",
        TRADING_API_KEY: "k",
        TRADING_COLLATERAL_IDS: "USDC",
      };
      const child = spawn(process.execPath, [new URL(`../dist/${program}`, import.meta.url).pathname], { env, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(1);
      expect(stderr).toMatch(/^(trading-exporter: fatal|demo): could not start \(EADDRINUSE\)\n$/);
    } finally {
      taken.close();
    }
  });
});

describe.each(["SIGTERM", "SIGINT"] as const)("on %s", (signal) => {
  it("finishes the in-flight scrape, then exits 0", async () => {
    venue = await startSimulator({ apiKey: "k", tickMs: 0 });
    const exporter = await startExporterChild({
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    });
    venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 700 }]);
    const v = venue;
    const scrape = fetch(new URL("metrics", exporter.url));
    await expect.poll(() => v.stats().requests.markets, { timeout: 5000, interval: 10 }).toBeGreaterThan(0);
    exporter.child.kill(signal);
    const res = await scrape;
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('trading_up{account="default"} 1');
    expect(await exporter.exited).toBe(0);
    // Once stopping, it accepts no new connection.
    await expect(fetch(new URL("metrics", exporter.url))).rejects.toThrow();
  });
});

describe("an unexpected error in one request", () => {
  it("is logged and answered 500, and the next request is served", async () => {
    const lines: string[] = [];
    const logger = createLogger(
      "info",
      new Writable({
        write: (c: Buffer, _e, done) => {
          lines.push(c.toString());
          done();
        },
      }),
    );
    const config = configFromEnv({ TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "X" });
    const exporter = new Exporter(config, logger, new SelfMetrics({ defaultMetrics: false }));
    let calls = 0;
    exporter.metrics = () => (++calls === 1 ? Promise.reject(new Error("boom")) : Promise.resolve({ head: new Body("ok_metric 1\n"), reused: undefined }));
    const server = await listen(
      createApp({ exporter, logger, timeouts: { defaultSeconds: 5, offsetSeconds: 0.5, maxSeconds: 10 }, maxInFlight: 5 }),
      "127.0.0.1",
      0,
    );
    try {
      const first = await fetch(new URL("metrics", server.url));
      expect(first.status).toBe(500);
      const second = await fetch(new URL("metrics", server.url));
      expect(second.status).toBe(200);
      expect(await second.text()).toBe("ok_metric 1\n");
      // Logged in our words with the class name; the thrown message (which a library could fill with anything) is not.
      expect(lines.some((l) => l.includes("request failed") && l.includes("unexpected failure (Error)"))).toBe(true);
      expect(lines.join("")).not.toContain("boom");
    } finally {
      await server.close(100);
      await exporter.close();
    }
  });
});
