// node_exporter's web flags on the built exporter: several listen addresses, a moved telemetry path,
// --web.max-requests (answers being made, not scrapes waiting), --web.disable-exporter-metrics and systemd's socket, each seen by a real client.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeSystemdSockets } from "../src/http/server.js";
import { parseListenAddresses, parseTelemetryPath } from "../src/config/values.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { MAIN, runExporter, startExporterChild, watchExporterChild } from "./helpers/child.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { simEnv } from "./helpers/stack.js";

let venue: RunningSimulator;
beforeAll(async () => {
  venue = await startSimulator({ seed: 7, tickMs: 0, apiKey: "sim-test-key" });
});
afterAll(() => venue.close());

/** The "listening" line's every URL. */
function urlsOf(lines: string[]): string[] {
  const line = lines.find((l) => l.includes('"msg":"listening"'));
  return (JSON.parse(line ?? "{}") as { urls?: string[] }).urls ?? [];
}

async function get(url: string | URL): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

describe("--web.listen-address, repeated", () => {
  it("serves on each address given", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.listen-address=127.0.0.1:0", "--web.listen-address=127.0.0.1:0"]);
    const urls = urlsOf(exporter.lines);
    expect(urls).toHaveLength(2);
    expect(new Set(urls.map((u) => new URL(u).port)).size).toBe(2);
    for (const url of urls) {
      const res = await get(new URL("/metrics", url));
      expect(res.status, url).toBe(200);
      expect(valueOf(parseExposition(res.text), "trading_up", { account: "sim" })).toBe(1);
    }
  });

  it("takes a comma-separated list in the variable and a list in the file; one address given twice is refused", () => {
    expect(parseListenAddresses("127.0.0.1:9842,[::1]:9842", "TRADING_LISTEN_ADDRESS")).toEqual([
      { host: "127.0.0.1", port: 9842 },
      { host: "::1", port: 9842 },
    ]);
    expect(parseListenAddresses(["127.0.0.1:1", ":2"], "web.listen_address")).toEqual([
      { host: "127.0.0.1", port: 1 },
      { host: "0.0.0.0", port: 2 },
    ]);
    expect(() => parseListenAddresses(["127.0.0.1:1", "127.0.0.1:1"], "--web.listen-address")).toThrowError("--web.listen-address: lists an address twice");
    expect(() => parseListenAddresses(["127.0.0.1:1", "nope"], "--web.listen-address")).toThrowError(
      "--web.listen-address[1]: expected host:port (e.g. 0.0.0.0:9842 or [::1]:9842)",
    );
    expect(() => parseListenAddresses("127.0.0.1:99999", "--web.listen-address")).toThrowError(
      "--web.listen-address: port 99999 is out of range: a port is 0 to 65535",
    );
  });
});

describe("--web.telemetry-path", () => {
  it("moves the metrics: the new path answers, /metrics is 404, the landing page links to the new one", async () => {
    const exporter = await startExporterChild(simEnv(venue.url), ["--web.telemetry-path=/custom/metrics"]);
    const moved = await get(new URL("/custom/metrics", exporter.url));
    expect(moved.status).toBe(200);
    expect(valueOf(parseExposition(moved.text), "trading_up", { account: "sim" })).toBe(1);
    expect((await get(new URL("/metrics", exporter.url))).status).toBe(404);
    const landing = await get(exporter.url);
    expect(landing.text).toContain('href="custom/metrics"');
    expect(landing.text).not.toContain('href="metrics"');
  });

  it.each([
    ["metrics", "expected a path such as /metrics"],
    ["/metrics/", "expected a path such as /metrics"],
    ["/a/../b", "expected a path such as /metrics"],
    ["/:id", "expected a path such as /metrics"],
    ["/probe", "/probe is another of the exporter's paths"],
    ["/-/healthy", "/-/healthy is another of the exporter's paths"],
    ["/runbooks/x", "/runbooks is another of the exporter's paths"],
  ])("refuses %j", (path, reason) => {
    expect(() => parseTelemetryPath(path, "--web.telemetry-path")).toThrowError(`--web.telemetry-path: ${reason}`);
  });
});

describe("--web.max-requests", () => {
  it("0 is no limit: 30 scrapes in flight at once all answer 200, none is rejected", async () => {
    // Latency keeps the first collection in flight while the other scrapes arrive and join it.
    venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 300 }]);
    try {
      const exporter = await startExporterChild(simEnv(venue.url, { TRADING_MARKETS_CACHE_SECONDS: "0" }), ["--web.max-requests=0"]);
      const answers = await Promise.all(Array.from({ length: 30 }, () => get(new URL("/metrics", exporter.url))));
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
      expect(valueOf(parseExposition(answers[0]!.text), "trading_exporter_scrapes_rejected_total")).toBe(0);
    } finally {
      venue.setFaults([]);
    }
  });

  it("1: of two concurrent slow scrapes neither is refused, since waiting for the venue holds no slot", async () => {
    venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 1000 }]);
    try {
      const exporter = await startExporterChild(simEnv(venue.url, { TRADING_MARKETS_CACHE_SECONDS: "0" }), ["--web.max-requests=1"]);
      const slow = await secondWhileFirstInFlight(exporter.url);
      expect([slow.first.status, slow.second.status]).toEqual([200, 200]);
      expect(valueOf(parseExposition(slow.second.text), "trading_exporter_scrapes_rejected_total")).toBe(0);
    } finally {
      venue.setFaults([]);
    }
  });

  it("--scrape.max-queued, removed, stops the start in one line that says why", async () => {
    const run = await runExporter(simEnv(venue.url), ["--scrape.max-queued=1"]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      "trading-exporter: configuration error: command line: --scrape.max-queued: removed: a scrape waiting for the venue no longer holds a slot of --web.max-requests, so there is no line to size; delete it",
    );
  });
});

/** Two scrapes of /metrics, the second sent once the first's collection has reached the venue; each with its time. */
async function secondWhileFirstInFlight(base: string | URL) {
  const requests = () => Object.values(venue.stats().requests).reduce((a, b) => a + b, 0);
  const timed = async () => {
    const started = performance.now();
    const answer = await get(new URL("/metrics", base));
    return { answer, ms: performance.now() - started };
  };
  const before = requests();
  const first = timed();
  await expect.poll(requests, { timeout: 5000, interval: 10 }).toBeGreaterThan(before);
  const second = await timed();
  const done = await first;
  return { first: done.answer, firstMs: done.ms, second: second.answer, secondMs: second.ms };
}

describe("--web.disable-exporter-metrics", () => {
  it("leaves out the process_* and nodejs_* series, and keeps the exporter's own", async () => {
    const names = async (args: string[]) => {
      const exporter = await startExporterChild(simEnv(venue.url), args);
      const samples = parseExposition((await get(new URL("/metrics", exporter.url))).text);
      return new Set(samples.map((s) => s.name));
    };
    const all = await names([]);
    expect([...all].some((n) => n.startsWith("process_"))).toBe(true);
    expect([...all].some((n) => n.startsWith("nodejs_"))).toBe(true);
    const without = await names(["--web.disable-exporter-metrics"]);
    expect([...without].filter((n) => n.startsWith("process_") || n.startsWith("nodejs_"))).toEqual([]);
    expect(without).toContain("trading_exporter_build_info");
    expect(without).toContain("trading_up");
  });
});

describe("--web.systemd-socket", () => {
  it("serves on the socket systemd passes as fd 3, not on the listen address", async () => {
    // systemd's part: a socket already listening, passed as fd 3, LISTEN_PID set to the service's pid
    // (the shell's, kept by exec).
    const socket = createServer();
    socket.listen(0, "127.0.0.1");
    await once(socket, "listening");
    const { port } = socket.address() as AddressInfo;
    // Node passes a descriptor by its number (a net.Server in `stdio` is refused at run time).
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    expect(fd).toBeGreaterThan(2);
    const child = spawn("sh", ["-c", 'LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@"', process.execPath, MAIN, "--web.systemd-socket"], {
      env: { ...simEnv(venue.url, { TRADING_LISTEN_ADDRESS: "127.0.0.1:0" }), PATH: process.env.PATH ?? "", LISTEN_FDS: "1" },
      stdio: ["ignore", "pipe", "pipe", fd],
    });
    // Only the child accepts on it from here on.
    socket.close();
    const exporter = await watchExporterChild(child);
    expect(new URL(exporter.url).port).toBe(String(port));
    expect(urlsOf(exporter.lines)).toEqual([`http://127.0.0.1:${port}/`]);
    const res = await get(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(valueOf(parseExposition(res.text), "trading_up", { account: "sim" })).toBe(1);
  });

  it("stops at start-up with one line when systemd passed nothing", async () => {
    const run = await runExporter(simEnv(venue.url), ["--web.systemd-socket"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "trading-exporter: --web.systemd-socket: no socket passed by systemd (LISTEN_PID and LISTEN_FDS are not set); " +
        "start the exporter from a systemd .socket unit, or leave out --web.systemd-socket\n",
    );
  });

  it("stops at start-up with one line when the descriptor passed is not a socket", async () => {
    const child = spawn("sh", ["-c", 'LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@" 3</dev/null', process.execPath, MAIN, "--web.systemd-socket"], {
      env: { ...simEnv(venue.url), PATH: process.env.PATH ?? "", LISTEN_FDS: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^trading-exporter: --web\.systemd-socket: a descriptor systemd passed is not a socket to serve on \([A-Z_]+\); check the ListenStream= lines of the service's \.socket unit\n$/,
    );
  });

  it("takes the sockets only when LISTEN_PID names this process, and clears the variables", () => {
    const env: Record<string, string | undefined> = { LISTEN_PID: "42", LISTEN_FDS: "2", LISTEN_FDNAMES: "a:b" };
    expect(takeSystemdSockets(env, 42)).toEqual([3, 4]);
    expect(env).toEqual({});
    expect(() => takeSystemdSockets({ LISTEN_PID: "41", LISTEN_FDS: "1" }, 42)).toThrowError(
      "--web.systemd-socket: LISTEN_PID names another process: the sockets were passed to it, not to this one; let systemd start the exporter itself (a wrapper script must exec it)",
    );
    expect(() => takeSystemdSockets({ LISTEN_PID: "42", LISTEN_FDS: "0" }, 42)).toThrowError(
      "--web.systemd-socket: LISTEN_FDS: expected a number of sockets from 1 to 64; check the ListenStream= lines of the service's .socket unit",
    );
  });
});
