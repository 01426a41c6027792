// The command line explains itself: --help names every flag and every variable the code reads.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { parseFlags, usage } from "../src/cli/flags.js";
import { runExporter } from "./helpers/child.js";

describe("--help", () => {
  it("lists every TRADING_ variable the configuration code reads", () => {
    const sources = ["src/config/env.ts", "src/cli/flags.ts"].map((f) => readFileSync(f, "utf8")).join("\n");
    const variables = new Set([...sources.matchAll(/"(TRADING_[A-Z_]+)"/g)].map((m) => m[1]!));
    expect(variables.size).toBeGreaterThan(15);
    const help = usage();
    expect([...variables].filter((v) => !help.includes(v))).toEqual([]);
  });

  it("is printed by the built command, with the version", async () => {
    const help = await runExporter({}, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--web.config.file=PATH");
    const version = await runExporter({}, ["--version"]);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(version.stdout).toBe(`trading-exporter ${pkg.version} (node ${process.version})\n`);
  });
});

describe("flags", () => {
  it("take precedence over the environment", () => {
    const flags = parseFlags(["--config.file=/a.yml", "--log.format", "logfmt"], { TRADING_CONFIG_FILE: "/b.yml" });
    expect(flags).toMatchObject({ configFile: "/a.yml", logFormat: "logfmt" });
  });

  it.each([
    [["--nope"], "command line: Unknown option '--nope'"],
    [["--log.format=xml"], "--log.format: expected json or logfmt"],
  ])("refuse %j with one line", (argv, message) => {
    expect(() => parseFlags(argv, {})).toThrowError(new ConfigError(message));
  });
});
