// A Node.js older than package.json's engines is refused at start with one line; a supported one starts.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NODE_FLOOR, belowFloor } from "../src/util/node-engines.js";
import { MAIN, startExporterChild } from "./helpers/child.js";

const ENV = {
  TRADING_BASE_URL: "http://127.0.0.1:9",
  TRADING_API_KEY: "k",
  TRADING_COLLATERAL_IDS: "USDC",
  TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
};
/** Debian's own node, older than the project supports, where the machine has one. */
const OLD_NODE = "/usr/bin/node";
const oldNodeBelow = (): boolean => existsSync(OLD_NODE) && belowFloor(execFileSync(OLD_NODE, ["--version"], { encoding: "utf8" }).trim().slice(1));

describe("the Node.js floor", () => {
  it("is package.json's engines.node, and judges versions against it", () => {
    expect(JSON.parse(readFileSync("package.json", "utf8")).engines.node).toBe(`>=${NODE_FLOOR}`);
    expect(belowFloor(process.versions.node)).toBe(false);
    expect(belowFloor("20.20.2")).toBe(true);
    expect(belowFloor("22.18.9")).toBe(true);
    expect(belowFloor("22.19.0")).toBe(false);
    expect(belowFloor("26.0.0")).toBe(false);
  });
});

describe("the started exporter", () => {
  it("starts on this (supported) Node.js", async () => {
    const { lines } = await startExporterChild(ENV);
    expect(lines.some((l) => l.includes("listening"))).toBe(true);
  });

  it.runIf(oldNodeBelow())("refuses an older Node.js with one line naming its version and the floor, exit 1", () => {
    const run = spawnSync(OLD_NODE, [MAIN], { env: { PATH: process.env.PATH ?? "", ...ENV }, encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(1);
    const version = execFileSync(OLD_NODE, ["--version"], { encoding: "utf8" }).trim();
    expect(run.stderr).toBe(`trading-exporter: Node.js ${version} is older than this release supports (>=${NODE_FLOOR}); run it on Node.js 24 LTS\n`);
  });
});
