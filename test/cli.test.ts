// The command line explains itself: --help is made from the settings table and names every variable the code reads.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { flagRows, parseCommandLine, usage } from "../src/cli/flags.js";
import { ConfigError } from "../src/config/errors.js";
import { knownVariables, SETTING_LIST } from "../src/config/settings.js";
import { runExporter } from "./helpers/child.js";

describe("--help", () => {
  it("lists every TRADING_ variable the code reads, and every setting of the table", () => {
    const help = usage();
    const read = new Set(
      ["src/config/env.ts", "src/config/settings.ts", "src/version.ts"].flatMap((f) =>
        [...readFileSync(f, "utf8").matchAll(/"(TRADING_[A-Z_]+)"/g)].map((m) => m[1]!),
      ),
    );
    expect(read.size).toBeGreaterThan(15);
    expect([...read].filter((v) => v !== "TRADING_EXPORTER_REVISION" && !help.includes(v))).toEqual([]);
    expect(knownVariables().filter((v) => v !== "TRADING_EXPORTER_REVISION" && !help.includes(v))).toEqual([]);
    for (const [id, setting] of SETTING_LIST) {
      if (setting.file) expect(help, id).toContain(`file ${id}`);
      if (setting.flag !== undefined) expect(help, id).toContain(`--${setting.flag}=`);
    }
  });

  it("is printed by the built command, with the version", async () => {
    const help = await runExporter({}, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--web.config.file=PATH");
    expect(help.stdout).toBe(`${usage()}\n`);
    const version = await runExporter({}, ["--version"]);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(version.stdout).toBe(`trading-exporter ${pkg.version} (node ${process.version})\n`);
  });
});

describe("the command line", () => {
  it("takes every flag of the table and the commands", () => {
    const argv = flagRows().map(([flag]) => (flag.includes("=") ? `${flag.split("=")[0]}=x` : flag));
    const line = parseCommandLine(argv);
    expect(Object.keys(line.flags).sort()).toEqual(SETTING_LIST.flatMap(([, s]) => (s.flag === undefined ? [] : [s.flag])).sort());
    expect(line).toMatchObject({ configCheck: true, help: true, version: true });
  });

  it.each([
    [["--nope"], "command line: unknown flag --nope"],
    [["--web.listen-adress=:1"], "command line: unknown flag --web.listen-adress (did you mean --web.listen-address?)"],
    [["positional"], "command line: unexpected argument (not shown): every flag is written --name=value"],
    [["--help=yes"], "command line: --help takes no value"],
    [["--web.listen-address"], "command line: --web.listen-address needs a value (--web.listen-address=VALUE)"],
    [["--sk_live\nsecret=1"], "command line: unknown flag (name not shown: not a plain flag name)"],
  ])("refuses %j with one line in our words, never echoing an argument", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrowError(new ConfigError(message));
    expect(message).not.toMatch(/positional|secret|yes|\n/);
  });
});
