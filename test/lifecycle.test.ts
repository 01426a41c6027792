// The process's life: start-up errors, graceful stop on SIGTERM/SIGINT, and one bad request that
// answers 500 while the process goes on.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { Exporter } from "../src/scrape-answers.js";
import { createApp } from "../src/http/app.js";
import { addressText, ListenError, listenAll } from "../src/http/server.js";
import { listen, WEB_DEFAULTS } from "./helpers/listen.js";
import { createLogger } from "../src/log.js";
import { Answer, SharedBody } from "../src/metrics/answer.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { MAIN, runExporter, startExporterChild, watchExporterChild } from "./helpers/child.js";

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

/** Runs `program` (a built file, from the repository root) to its exit with the exporter's listen address set, and returns its code and stderr. */
async function startUpFailure(program: string, listenAddress: string, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? "",
    TRADING_LISTEN_ADDRESS: listenAddress,
    TRADING_BASE_URL: "http://127.0.0.1:1",
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
  };
  const child = spawn(process.execPath, [new URL(`../${program}`, import.meta.url).pathname, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stderr };
}

/** A port held by this test for as long as `use` runs: taken, not fixed. */
async function withTakenPort<T>(use: (port: number) => Promise<T>): Promise<T> {
  const taken = createServer();
  taken.listen(0, "127.0.0.1");
  await once(taken, "listening");
  try {
    return await use((taken.address() as AddressInfo).port);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
}

const PROGRAMS = [
  // Each set by TRADING_LISTEN_ADDRESS, which its line names.
  { program: "dist/main.js", prefix: "trading-exporter", setting: "TRADING_LISTEN_ADDRESS" },
  { program: "dist-tools/tools/demo.js", prefix: "demo", setting: "TRADING_LISTEN_ADDRESS" },
];

describe("a listen address that cannot be used", () => {
  it.each(PROGRAMS)("stops $program with one line naming a taken address and what to do", async ({ program, prefix, setting }) => {
    await withTakenPort(async (port) => {
      const { code, stderr } = await startUpFailure(program, `127.0.0.1:${port}`);
      expect(code).toBe(1);
      expect(stderr).toBe(`${prefix}: cannot listen on 127.0.0.1:${port}: the address is in use; stop what holds it or set ${setting}\n`);
    });
  });

  it.each(PROGRAMS)("stops $program with one line naming an address that is not an IP address or not this host's", async ({ program, prefix, setting }) => {
    const remedy = `set ${setting} to an address of this host, or 0.0.0.0 for all of them`;
    // 999.1.1.1 is no IPv4 address, so Node looks it up as a name; 192.0.2.1 (TEST-NET-1) is on no interface.
    const bad = await startUpFailure(program, "999.1.1.1:80");
    expect(bad).toEqual({ code: 1, stderr: `${prefix}: cannot listen on 999.1.1.1:80: no such host name or IP address; ${remedy}\n` });
    const foreign = await startUpFailure(program, "192.0.2.1:9842");
    expect(foreign).toEqual({ code: 1, stderr: `${prefix}: cannot listen on 192.0.2.1:9842: no interface of this host has that address; ${remedy}\n` });
  });

  it("names the one of several listen addresses that failed", async () => {
    await withTakenPort(async (port) => {
      const { code, stderr } = await startUpFailure("dist/main.js", `127.0.0.1:0,[::1]:0,127.0.0.1:${port}`);
      expect(code).toBe(1);
      expect(stderr).toBe(`trading-exporter: cannot listen on 127.0.0.1:${port}: the address is in use; stop what holds it or set TRADING_LISTEN_ADDRESS\n`);
      // The flag overrides the variable: it is the one named.
      const flagged = await startUpFailure("dist/main.js", "127.0.0.1:0", [`--web.listen-address=127.0.0.1:${port}`]);
      expect(flagged.stderr).toBe(
        `trading-exporter: cannot listen on 127.0.0.1:${port}: the address is in use; stop what holds it or set --web.listen-address\n`,
      );
    });
  });

  it("closes the listeners already open when a later one fails, and throws a ListenError naming the failed address", async () => {
    const config = configFromEnv({ TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "X" });
    const exporter = new Exporter(config, createLogger("silent"), new SelfMetrics({ defaultMetrics: false }));
    const app = createApp({
      exporter,
      logger: createLogger("silent"),
      timeouts: { defaultTimeoutSeconds: 5, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 10 },
    });
    // A port just let go by this test, so free: the exporter binds it first, then fails on a taken one.
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const first = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    try {
      await withTakenPort(async (port) => {
        const error = await listenAll(
          app,
          [
            { host: "127.0.0.1", port: first },
            { host: "127.0.0.1", port },
          ],
          WEB_DEFAULTS,
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ListenError);
        expect((error as ListenError).address).toBe(`127.0.0.1:${port}`);
        expect((error as ListenError).reason).toBe("the address is in use");
      });
      // The first address was bound, then let go: it can be bound again.
      const again = createServer().listen(first, "127.0.0.1");
      await once(again, "listening");
      await new Promise((resolve) => again.close(resolve));
    } finally {
      await exporter.close();
    }
  });

  it("says what an unknown failure was by its code alone, never by the library's message, and brackets IPv6", () => {
    const cause = Object.assign(new Error("listen EWEIRD /home/alice/.secret-path"), { code: "EWEIRD" });
    const error = new ListenError(addressText("::1", 9842), cause);
    expect(error.line("--web.listen-address")).toBe("cannot listen on [::1]:9842: the address cannot be used (EWEIRD); check --web.listen-address");
    expect(error.message).not.toContain("secret-path");
    expect(new ListenError("h:1", "not an error").line("X")).toBe("cannot listen on h:1: the address cannot be used (unknown error); check X");
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

describe.each([
  ["uncaught exception", "throw new Error('boom')"],
  ["unhandled rejection", "Promise.reject(new Error('boom'))"],
])("an %s", (what, fault) => {
  it("is logged in one line at error level, then the process exits 1", async () => {
    venue = await startSimulator({ apiKey: "k", tickMs: 0 });
    // A bug stand-in: the preloaded module raises it when the test sends SIGUSR2.
    const preload = `data:text/javascript,process.on("SIGUSR2", () => { ${fault}; })`;
    const env = {
      PATH: process.env.PATH ?? "",
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    };
    const exporter = await watchExporterChild(spawn(process.execPath, ["--import", preload, MAIN], { env, stdio: ["ignore", "ignore", "pipe"] }));
    exporter.child.kill("SIGUSR2");
    expect(await exporter.exited).toBe(1);
    const errors = exporter.lines.filter((l) => /"level":(50|"ERROR")/.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${what}: exiting`);
    expect(errors[0]).toContain("unexpected failure (Error)");
    expect(exporter.lines.join("\n")).not.toContain("boom");
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
    exporter.metrics = () => (++calls === 1 ? Promise.reject(new Error("boom")) : Promise.resolve(new Answer(new SharedBody("ok_metric 1\n"))));
    const server = await listen(
      createApp({ exporter, logger, timeouts: { defaultTimeoutSeconds: 5, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 10 } }),
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
