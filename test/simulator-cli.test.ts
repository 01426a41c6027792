// The simulator's command line: flag parsing, fault flags, and the start-up routine main.ts runs.
import { describe, expect, it } from "vitest";
import { CliError, parseCliArgs, runCli } from "../tools/simulator/cli.js";
import { parseFaultFlag } from "../tools/simulator/faults.js";
import { rawRequest } from "./helpers/raw-request.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
}

describe("parseCliArgs", () => {
  it("reads every flag, in both --flag value and --flag=value forms", () => {
    const cmd = parseCliArgs([
      "--port",
      "9000",
      "--host=0.0.0.0",
      "--seed",
      "42",
      "--tick-ms",
      "0",
      "--profile",
      "large",
      "--api-key",
      "K",
      "--api-key-header",
      "X-Key",
      "--time-unit",
      "ns",
      "--markets",
      "30",
      "--positions=4",
      "--active-orders",
      "10",
      "--history-orders",
      "20",
      "--collateral",
      "USDC:summary",
      "--epoch-ms",
      "0",
      "--latency-ms=150",
      "--fault",
      "markets:latency:250",
      "--fault",
      "*:status:429:5",
    ]);
    expect(cmd).toEqual({
      kind: "run",
      options: {
        port: 9000,
        host: "0.0.0.0",
        seed: 42,
        tickMs: 0,
        profile: "large",
        apiKey: "K",
        apiKeyHeader: "X-Key",
        timeUnit: "ns",
        markets: 30,
        positions: 4,
        activeOrders: 10,
        historyOrders: 20,
        epochMs: 0,
        latencyMs: 150,
        collaterals: [{ id: "USDC", shape: "summary" }],
        faults: [
          { endpoint: "markets", kind: "latency", latencyMs: 250 },
          { endpoint: "*", kind: "status", status: 429, retryAfter: "5" },
        ],
      },
    });
  });

  it("defaults the port to 8080 and recognises --help", () => {
    expect(parseCliArgs([])).toEqual({ kind: "run", options: { port: 8080 } });
    expect(parseCliArgs(["--seed", "3", "-h"])).toEqual({ kind: "help" });
  });

  it("rejects bad flags with a message naming them", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--port", "abc"], /--port must be an integer/],
      [["--profile", "giant"], /--profile must be one of small, large, huge/],
      [["--seed"], /--seed needs a value/],
      [["--nope"], /unknown option --nope/],
      [["stray"], /unexpected argument "stray"/],
      [["--collateral", "USDC"], /--collateral must be ID:SHAPE/],
      [["--fault", "markets:explode"], /--fault markets:explode: kind must be one of/],
    ];
    for (const [argv, message] of cases) expect(() => parseCliArgs(argv), argv.join(" ")).toThrow(message);
    expect(() => parseCliArgs(["--nope"])).toThrow(CliError);
  });
});

describe("parseFaultFlag", () => {
  it("maps ARG to latencyMs, status or bytes by kind", () => {
    expect(parseFaultFlag("orders_active:trickle:500")).toEqual({ endpoint: "orders_active", kind: "trickle", latencyMs: 500 });
    expect(parseFaultFlag("markets:redirect:307")).toEqual({ endpoint: "markets", kind: "redirect", status: 307 });
    expect(parseFaultFlag("*:gzip_bomb:1048576")).toEqual({ endpoint: "*", kind: "gzip_bomb", bytes: 1048576 });
    expect(parseFaultFlag("account_info:reset")).toEqual({ endpoint: "account_info", kind: "reset" });
    expect(() => parseFaultFlag("account_info:hang:5")).toThrow(/takes no argument/);
    expect(() => parseFaultFlag("account_info:status:abc")).toThrow(/status must be a non-negative integer/);
    expect(() => parseFaultFlag("account_info:status:700")).toThrow(/status must be an integer from 100 to 599/);
  });
});

describe("runCli", () => {
  it("starts the simulator and prints one line with its URL", async () => {
    const c = capture();
    const sim = await runCli(["--port", "0", "--tick-ms", "0", "--seed", "7"], c.io);
    if (typeof sim === "number") throw new Error(`runCli exited with ${sim}: ${c.err.join(" ")}`);
    try {
      expect(c.out).toHaveLength(1);
      expect(c.out[0]).toContain(sim.url);
      expect(c.err).toEqual([]);
      expect((await rawRequest(`${sim.url}/v1/public/markets`)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it("prints one clear line on stderr and exits 1 on a bad flag or option, or one it cannot serve", async () => {
    for (const argv of [
      ["--tick-ms", "soon"],
      ["--port", "70000"],
      ["--active-orders", "1000000"],
      ["--fault", "account_info:status:429:-1"],
      ["--fault", "account_info:status:429:1.5"],
      ["--api-key", "line\nfeed"],
      ["--api-key", " edge"],
    ]) {
      const c = capture();
      expect(await runCli(argv, c.io)).toBe(1);
      expect(c.err).toHaveLength(1);
      expect(c.err[0]).toMatch(/^simulator: .*(tick-ms|port|activeOrders|retryAfter|apiKey)/);
      expect(c.out).toEqual([]);
    }
  });

  it("refuses --print-exporter-config with --port 0 in one line: the printed base_url would name port 0", async () => {
    const c = capture();
    expect(await runCli(["--print-exporter-config", "--port", "0"], c.io)).toBe(1);
    expect(c.out).toEqual([]);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).toMatch(/^simulator: --print-exporter-config needs the port .*--port 0/);
    const ok = capture();
    expect(await runCli(["--print-exporter-config", "--port", "9000"], ok.io)).toBe(0);
    expect(ok.out.join("\n")).toContain('base_url: "http://127.0.0.1:9000"');
  });

  it("starts the simulated clock now unless --epoch-ms fixes it", async () => {
    const c = capture();
    const before = Date.now();
    const sim = await runCli(["--port", "0", "--tick-ms", "0"], c.io);
    if (typeof sim === "number") throw new Error(`runCli exited with ${sim}: ${c.err.join(" ")}`);
    try {
      const state = (await rawRequest(`${sim.url}/_sim/state`)).body.toString("utf8");
      const nowMs = (JSON.parse(state) as { nowMs: number }).nowMs;
      expect(nowMs).toBeGreaterThanOrEqual(before);
      expect(nowMs).toBeLessThanOrEqual(Date.now());
    } finally {
      await sim.close();
    }
    expect(parseCliArgs(["--epoch-ms", "1704067200000"])).toEqual({ kind: "run", options: { port: 8080, epochMs: 1704067200000 } });
  });

  it("prints the usage on --help and exits 0", async () => {
    const c = capture();
    expect(await runCli(["--help"], c.io)).toBe(0);
    expect(c.out.join("\n")).toMatch(/--fault ENDPOINT:KIND\[:ARG\]/);
  });
});
