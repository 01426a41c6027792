// A Node.js older than package.json's engines is refused with one line of ours by every entry point: `npm start`,
// `npm run demo`, `npm run simulator` (before they build) and the built dist/main.js, dist-tools/tools/demo.js, the simulator and
// the webhook receiver. The old Node is Node 20 from the npm registry's `node` package (a fresh machine has no Node 20
// package to install), installed outside the clone and reused; dist/ is not rebuilt.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { NODE_FLOOR, belowFloor } from "../src/util/node-engines.js";
import { MAIN, startExporterChild } from "./helpers/child.js";
import { REPO_ROOT } from "./helpers/markdown-docs.js";

const ENV = {
  TRADING_BASE_URL: "http://127.0.0.1:9",
  TRADING_API_KEY: "k",
  TRADING_COLLATERAL_IDS: "USDC",
  TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
};

/** Where Node 20 is installed, beside the Node .ci/run installs. */
const NODE20_DIR = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "trading-exporter-ci", "node-20");
const NODE20_BIN = join(NODE20_DIR, "node_modules", "node", "bin");
const NODE20 = join(NODE20_BIN, "node");
let version = "";

beforeAll(() => {
  if (!existsSync(NODE20)) {
    execFileSync("npm", ["install", "--prefix", NODE20_DIR, "--no-audit", "--no-fund", "--loglevel=error", "node@20"], { stdio: "ignore", timeout: 240_000 });
  }
  version = execFileSync(NODE20, ["--version"], { encoding: "utf8" }).trim();
}, 250_000);

/** A shell's environment with Node 20 first on PATH and no variables of the npm run around this test. */
function node20Env(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$|VITEST|TRADING_)/.test(k)));
  return { ...env, ...ENV, PATH: `${NODE20_BIN}:${process.env.PATH ?? ""}` };
}

const ours = (command: string) => `${command}: Node.js ${version} is older than this release supports (>=${NODE_FLOOR}); run it on Node.js 24 LTS`;

describe("the Node.js floor", () => {
  it("is package.json's engines.node, and judges versions against it", () => {
    expect(JSON.parse(readFileSync("package.json", "utf8")).engines.node).toBe(`>=${NODE_FLOOR}`);
    expect(belowFloor(process.versions.node)).toBe(false);
    expect(belowFloor("20.20.2")).toBe(true);
    expect(belowFloor("22.18.9")).toBe(true);
    expect(belowFloor("22.19.0")).toBe(false);
    expect(belowFloor("26.0.0")).toBe(false);
  });

  it("starts the exporter on this (supported) Node.js", async () => {
    const { lines } = await startExporterChild(ENV);
    expect(lines.some((l) => l.includes("listening"))).toBe(true);
  });
});

describe("on Node 20", () => {
  it("is below the floor", () => {
    expect(belowFloor(version.slice(1))).toBe(true);
  });

  it.each([
    ["dist/main.js", MAIN, "trading-exporter"],
    ["dist-tools/tools/demo.js", join(REPO_ROOT, "dist-tools/tools/demo.js"), "demo"],
    ["dist-tools/tools/simulator/main.js", join(REPO_ROOT, "dist-tools/tools/simulator/main.js"), "simulator"],
    ["dist-tools/tools/webhook/main.js", join(REPO_ROOT, "dist-tools/tools/webhook/main.js"), "webhook receiver"],
  ])("%s exits 1 with one line of ours, naming the version and the floor", (_name, file, command) => {
    const run = spawnSync(NODE20, [file], { env: node20Env(), encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`${ours(command)}\n`);
    expect(run.stdout).toBe("");
  });

  it.each([
    ["npm start", ["start"], "trading-exporter"],
    ["npm run demo", ["run", "demo"], "demo"],
    ["npm run simulator", ["run", "simulator"], "simulator"],
  ])("%s exits non-zero with our one line, no stack trace, before it builds", (_name, args, command) => {
    const built = statSync(MAIN).mtimeMs;
    const run = spawnSync("npm", args, { cwd: REPO_ROOT, env: node20Env(), encoding: "utf8", timeout: 60_000 });
    expect(run.status).not.toBe(0);
    const lines = `${run.stdout}${run.stderr}`.split("\n");
    // npm's own lines (the script it runs) are npm's; of ours there is exactly one, and nothing from inside Node.
    expect(lines.filter((l) => l.startsWith(`${command}:`))).toEqual([ours(command)]);
    expect(lines.filter((l) => /^\s+at |node:internal|Error:/.test(l))).toEqual([]);
    expect(statSync(MAIN).mtimeMs).toBe(built);
  });
});
