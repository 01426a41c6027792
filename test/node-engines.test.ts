// The exporter warns once at start on a Node.js outside package.json's engines, and not on a supported one.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { enginesRange, satisfiesEngines } from "../src/util/node-engines.js";
import { MAIN, startExporterChild, watchExporterChild } from "./helpers/child.js";

const ENV = {
  TRADING_BASE_URL: "http://127.0.0.1:9",
  TRADING_API_KEY: "k",
  TRADING_COLLATERAL_IDS: "USDC",
  TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
};
const WARNING = /unsupported Node\.js: outside package\.json engines/;
/** Debian's own node, older than the project supports, where the machine has one. */
const OLD_NODE = "/usr/bin/node";
const oldNodeOutside = (): boolean =>
  existsSync(OLD_NODE) && satisfiesEngines(execFileSync(OLD_NODE, ["--version"], { encoding: "utf8" }).trim(), enginesRange() ?? "") === false;

describe("satisfiesEngines", () => {
  it("reads package.json's range and judges versions against it", () => {
    const range = enginesRange();
    expect(range).toBe(JSON.parse(readFileSync("package.json", "utf8")).engines.node);
    expect(satisfiesEngines(process.versions.node, range ?? "")).toBe(true);
    expect(satisfiesEngines("20.20.2", ">=22.19")).toBe(false);
    expect(satisfiesEngines("v22.18.9", ">=22.19")).toBe(false);
    expect(satisfiesEngines("22.19.0", ">=22.19")).toBe(true);
    expect(satisfiesEngines("24.1.0", "^22 || ^24 || >=26")).toBe(true);
    expect(satisfiesEngines("25.0.0", "^22 || ^24 || >=26")).toBe(false);
    expect(satisfiesEngines("24.1.0", "22.x - 24.x")).toBeUndefined();
  });
});

describe("the started exporter", () => {
  it("logs no warning on this (supported) Node.js", async () => {
    const { lines } = await startExporterChild(ENV);
    expect(lines.filter((l) => WARNING.test(l))).toEqual([]);
  });

  it.runIf(oldNodeOutside())("logs one warning line on an older Node.js, naming the version and the range", async () => {
    const child = spawn(OLD_NODE, [MAIN], { env: { PATH: process.env.PATH ?? "", ...ENV }, stdio: ["ignore", "pipe", "pipe"] });
    const { lines } = await watchExporterChild(child);
    const warned = lines.filter((l) => WARNING.test(l));
    expect(warned).toHaveLength(1);
    const version = (JSON.parse(warned[0]!) as { node: string; engines: string }).node;
    expect(satisfiesEngines(version, enginesRange() ?? "")).toBe(false);
    expect(JSON.parse(warned[0]!)).toMatchObject({ engines: enginesRange() });
  });
});
