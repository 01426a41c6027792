// The simulator's desk of N accounts: one key and one moving state each, and the exporter config that matches it.

import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCliArgs, runCli } from "../tools/simulator/cli.js";
import { resolveConfig } from "../tools/simulator/config.js";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

let sim: RunningSimulator | undefined;
let stack: Stack | undefined;
afterEach(async () => {
  await sim?.close();
  await stack?.close();
  sim = undefined;
  stack = undefined;
});

const accountInfo = async (url: string, key: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(new URL("/v1/private/account-info?collateralId=USDC", url), { headers: { "X-Api-Key": key } });
  return { status: res.status, body: await res.text() };
};

describe("--accounts N", () => {
  it("parses the flag and the config printer", () => {
    expect(parseCliArgs(["--accounts", "1000", "--print-exporter-config"])).toEqual({ kind: "print-config", options: { port: 8080, accounts: 1000 } });
    expect(() => resolveConfig({ accounts: 0 })).toThrow("accounts: must be an integer from 1 to 10000, got 0");
  });

  it("gives every account its own key: each answers with its own state, a wrong or the bare key is refused", async () => {
    sim = await startSimulator({ accounts: 3, apiKey: "k", tickMs: 0, collaterals: [{ id: "USDC", shape: "detailed" }] });
    const one = await accountInfo(sim.url, "k-1");
    const two = await accountInfo(sim.url, "k-2");
    const three = await accountInfo(sim.url, "k-3");
    expect([one.status, two.status, three.status]).toEqual([200, 200, 200]);
    expect(new Set([one.body, two.body, three.body]).size).toBe(3);
    for (const wrong of ["k", "k-4", "k-0", "K-1", ""]) expect((await accountInfo(sim.url, wrong)).status).toBe(401);
    // Each account's state moves on a tick, so its answer changes.
    sim.tick();
    expect((await accountInfo(sim.url, "k-2")).body).not.toBe(two.body);
  });

  it("serves the largest desk: the last account's key answers, one past it and malformed numbers are refused", async () => {
    sim = await startSimulator({ accounts: 10_000, apiKey: "k", tickMs: 0 });
    expect((await accountInfo(sim.url, "k-10000")).status).toBe(200);
    for (const wrong of ["k-10001", "k-010", "k-1.0", "k-+1", "k--1", "k-1e3"]) expect((await accountInfo(sim.url, wrong)).status, wrong).toBe(401);
  });

  it("answers an account at a tick the same whether or not it was asked before", async () => {
    const options = { accounts: 50, apiKey: "k", tickMs: 0, epochMs: Date.UTC(2024, 0, 1) };
    sim = await startSimulator(options);
    const fresh = await startSimulator(options);
    try {
      const paths = ["/v1/private/account-info?collateralId=USDC", "/v1/private/orders/realtime", "/v1/private/orders/history?offset=20&limit=50"];
      const answers = async (on: RunningSimulator, key: string) =>
        Promise.all(paths.map(async (path) => (await fetch(new URL(path, on.url), { headers: { "X-Api-Key": key } })).text()));
      // Every account of one desk asked at every tick; on the other, account 37 only at the end.
      for (let tick = 0; tick < 3; tick++) {
        for (let i = 1; i <= 50; i++) await answers(sim, `k-${i}`);
        sim.tick(40);
      }
      fresh.tick(120);
      expect(await answers(fresh, "k-37")).toEqual(await answers(sim, "k-37"));
    } finally {
      await fresh.close();
    }
  });

  it("keeps the one-account venue as it was: the key itself, the same state as before", async () => {
    sim = await startSimulator({ tickMs: 0, seed: 3 });
    const before = await accountInfo(sim.url, "sim-key");
    expect(before.status).toBe(200);
    expect((await accountInfo(sim.url, "sim-key-1")).status).toBe(401);
    const desk = await startSimulator({ tickMs: 0, seed: 3, accounts: 2 });
    try {
      expect((await accountInfo(desk.url, "sim-key-1")).body).toBe(before.body);
    } finally {
      await desk.close();
    }
  });

  it("prints an exporter config whose accounts all collect, each its own figures", async () => {
    const printed: string[] = [];
    expect(
      await runCli(["--accounts", "3", "--api-key", SIM_KEY, "--collateral", "USDC:detailed", "--print-exporter-config"], {
        out: (l) => printed.push(l),
        err: () => {},
      }),
    ).toBe(0);
    const file = parse(printed.join("\n")) as { accounts: Array<{ name: string; auth: { key: string } }> };
    expect(file.accounts.map((a) => a.name)).toEqual(["sim-0001", "sim-0002", "sim-0003"]);
    expect(new Set(file.accounts.map((a) => a.auth.key)).size).toBe(3);

    const shape = { accounts: 3, apiKey: SIM_KEY, apiKeyHeader: "X-Api-Key", collaterals: [{ id: "USDC", shape: "detailed" as const }] };
    stack = await startStack({ venue: { accounts: 3, collaterals: shape.collaterals }, file: (url) => parse(exporterConfigYaml(shape, url)) });
    const margins: number[] = [];
    for (const name of ["sim-0001", "sim-0002", "sim-0003"]) {
      const samples = parseExposition(await (await stack.get(`/probe?target=${name}`)).text());
      expect(valueOf(samples, "trading_up", { account: name })).toBe(1);
      margins.push(valueOf(samples, "trading_account_total_margin", { account: name, collateral_id: "USDC" }));
    }
    expect(new Set(margins).size).toBe(3);
  });
});
