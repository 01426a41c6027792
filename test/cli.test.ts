// The command line explains itself: --help is made from the settings table and names every variable the code reads.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseCommandLine, usage } from "../src/cli/flags.js";
import { flagRows } from "./helpers/settings-tables.js";
import { knownVariables, REMOVED_SETTINGS, SETTING_LIST } from "../src/config/settings.js";
import { runExporter } from "./helpers/child.js";

describe("--help", () => {
  it("lists every TRADING_ variable the code reads, and every setting of the table", () => {
    const help = usage();
    const read = new Set(
      ["src/config/load.ts", "src/config/settings.ts", "src/version.ts"].flatMap((f) =>
        [...readFileSync(f, "utf8").matchAll(/"(TRADING_[A-Z_]+)"/g)].map((m) => m[1]!),
      ),
    );
    expect(read.size).toBeGreaterThan(15);
    // The build's own (revision, branch, user, date) are set by the image, not by people; a removed setting is only warned about.
    const build = (v: string) => v.startsWith("TRADING_EXPORTER_") || REMOVED_SETTINGS.some((r) => r.env === v);
    expect([...read].filter((v) => !build(v) && !help.includes(v))).toEqual([]);
    expect(knownVariables().filter((v) => !build(v) && !help.includes(v))).toEqual([]);
    for (const [id, setting] of SETTING_LIST) {
      if (setting.file) expect(help, id).toContain(`file ${id}`);
      if (setting.flag !== undefined) expect(help, id).toContain(setting.switch ? `--${setting.flag} ` : `--${setting.flag}=`);
    }
  });

  it("fits 100 columns, grouped by topic (venue, accounts, web, scrape, log), each group's required settings first", () => {
    const lines = usage().split("\n");
    expect(lines.filter((l) => l.length > 100)).toEqual([]);
    const titles = lines.filter((l) => /^[A-Z][^:]*:$/.test(l)).map((l) => l.split(/[ :]/)[0]);
    expect(titles).toEqual(["Commands", "Venue", "Accounts", "Web", "Scrape", "Log"]);
    /** The first setting named under a group. */
    const first = (title: string) => lines[lines.findIndex((l) => l.startsWith(title)) + 1]?.trim().split(" ")[0];
    expect(first("Venue")).toBe("TRADING_BASE_URL");
    expect(first("Accounts")).toBe("TRADING_COLLATERAL_IDS");
    expect(first("Web")).toBe("--web.listen-address=HOST:PORT");
    expect(first("Log")).toBe("--log.level=LEVEL");
  });

  it("is printed by the built command, with the version", async () => {
    const help = await runExporter({}, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--web.config.file=PATH");
    expect(help.stdout).toBe(`${usage()}\n`);
  });

  it("--version is printed in Prometheus's form, which version scrapers parse", async () => {
    const version = await runExporter(
      {
        TRADING_EXPORTER_REVISION: "abc123",
        TRADING_EXPORTER_BRANCH: "main",
        TRADING_EXPORTER_BUILD_USER: "ci@builder",
        TRADING_EXPORTER_BUILD_DATE: "20260101-10:00:00",
      },
      ["--version"],
    );
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(version.code).toBe(0);
    const lines = version.stdout.split("\n");
    expect(lines[0]).toMatch(/^trading-exporter, version \S+ \(branch: \S+, revision: \S+\)$/);
    expect(lines[0]).toBe(`trading-exporter, version ${pkg.version} (branch: main, revision: abc123)`);
    expect(lines.slice(1)).toEqual(["  build user:       ci@builder", "  build date:       20260101-10:00:00", `  node version:     ${process.version}`, ""]);
    // Built without the image's arguments: each is one word still, so the first line parses.
    const bare = await runExporter({ TRADING_EXPORTER_BRANCH: "my branch" }, ["--version"]);
    expect(bare.stdout.split("\n")[0]).toMatch(/^trading-exporter, version \S+ \(branch: my_branch, revision: unknown\)$/);
  });
});

describe("the command line", () => {
  it("takes every flag of the table and the commands", () => {
    const argv = flagRows().map(([flag]) => (flag.includes("=") ? `${flag.split("=")[0]}=x` : flag));
    const line = parseCommandLine(argv);
    expect(Object.keys(line.flags).sort()).toEqual(SETTING_LIST.flatMap(([, s]) => (s.flag === undefined ? [] : [s.flag])).sort());
    expect(line).toMatchObject({ configCheck: true, help: true, version: true });
  });

  it("collects a repeated --web.listen-address, and takes switches on and off as kingpin does", () => {
    const line = parseCommandLine([
      "--web.listen-address=127.0.0.1:1",
      "--web.listen-address=[::1]:2",
      "--web.systemd-socket",
      "--no-web.disable-exporter-metrics",
    ]);
    expect(line.flags).toEqual({ "web.listen-address": ["127.0.0.1:1", "[::1]:2"], "web.systemd-socket": "true", "web.disable-exporter-metrics": "false" });
    expect(line.problems).toEqual([]);
    expect(parseCommandLine(["--web.systemd-socket=yes"]).problems).toEqual(["command line: --web.systemd-socket takes no value"]);
    expect(parseCommandLine(["--no-web.telemetry-path"]).problems).toEqual([
      "command line: unknown flag --no-web.telemetry-path (did you mean --web.telemetry-path?)",
    ]);
  });

  it.each([
    [["--nope"], "command line: unknown flag --nope"],
    [["-hx"], "command line: unknown flag -x"],
    [["--web.listen-adress=:1"], "command line: unknown flag --web.listen-adress (did you mean --web.listen-address?)"],
    [["positional"], "command line: unexpected argument (not shown): every flag is written --name=value"],
    [["--help=yes"], "command line: --help takes no value"],
    [["--web.listen-address"], "command line: --web.listen-address needs a value (--web.listen-address=VALUE)"],
    [["--sk_live\nsecret=1"], "command line: unknown flag (name not shown: not a plain flag name)"],
  ])("refuses %j with one line in our words, never echoing an argument", (argv, message) => {
    expect(parseCommandLine(argv).problems).toEqual([message]);
    expect(message).not.toMatch(/positional|secret|yes|\n/);
  });

  it("names every flag it cannot take, and keeps the ones it can", () => {
    const line = parseCommandLine(["--nope", "--log.level=warn", "--web.listen-adress=:1", "--web.systemd-socket=yes"]);
    expect(line.problems).toEqual([
      "command line: unknown flag --nope",
      "command line: unknown flag --web.listen-adress (did you mean --web.listen-address?)",
      "command line: --web.systemd-socket takes no value",
    ]);
    expect(line.flags).toEqual({ "log.level": "warn" });
  });

  it("reports an unknown flag with every other start-up problem at once, and takes a log level in any case", async () => {
    const run = await runExporter({ TRADING_BASE_URL: "ftp://venue", TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "USDC" }, ["--nope", "--log.level=WARN"]);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      "trading-exporter: configuration error: command line: unknown flag --nope",
      expect.stringMatching(/^trading-exporter: configuration error: TRADING_BASE_URL: /),
    ]);
  });

  it("says in --help that every on/off flag has a --no- form", () => {
    expect(usage()).toContain("--no- form");
  });
});
