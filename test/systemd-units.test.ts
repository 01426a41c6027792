// examples/systemd/: the service and socket units. Where systemd-analyze is installed, `systemd-analyze verify` accepts
// them without a warning, with ExecStart's program pointed at a stand-in file this test makes; where it is not, the
// files are checked to parse as unit files with known sections and keys. Either way ExecStart's flags are the exporter's.

import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../src/cli/flags.js";
import { REPO_ROOT } from "./helpers/markdown-docs.js";

const UNITS = ["trading-exporter.socket", "trading-exporter.service"];
const read = (unit: string) => readFileSync(join(REPO_ROOT, "examples/systemd", unit), "utf8");
const hasAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

/** A unit file's sections and their `Key=value` lines, continuation lines joined. */
function parseUnit(text: string): Map<string, Array<[string, string]>> {
  const sections = new Map<string, Array<[string, string]>>();
  let section: Array<[string, string]> | undefined;
  for (const line of text.replace(/\\\n\s*/g, " ").split("\n")) {
    if (line.trim() === "" || /^[#;]/.test(line)) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      section = [];
      sections.set(header[1]!, section);
      continue;
    }
    const pair = /^([A-Za-z0-9]+)=(.*)$/.exec(line);
    if (pair === null || section === undefined) throw new Error(`not a unit file line: ${line}`);
    section.push([pair[1]!, pair[2]!]);
  }
  return sections;
}

const execStart = (): string[] =>
  parseUnit(read("trading-exporter.service"))
    .get("Service")!
    .find(([k]) => k === "ExecStart")![1]
    .trim()
    .split(/\s+/);

describe("examples/systemd", () => {
  it.runIf(hasAnalyze)("pass systemd-analyze verify, with no warning, ExecStart pointed at a stand-in", () => {
    const dir = mkdtempSync(join(tmpdir(), "systemd-units-"));
    try {
      const standIn = join(dir, "node");
      writeFileSync(standIn, "#!/bin/sh\nexit 0\n");
      chmodSync(standIn, 0o755);
      for (const unit of UNITS) writeFileSync(join(dir, unit), read(unit).replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${standIn} `));
      expect(readFileSync(join(dir, "trading-exporter.service"), "utf8")).toContain(`ExecStart=${standIn} `);
      const run = spawnSync("systemd-analyze", ["verify", ...UNITS.map((u) => join(dir, u))], { encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(hasAnalyze)("parse as unit files with known sections and keys (systemd-analyze is not installed here)", () => {
    const known: Record<string, string[]> = {
      Unit: ["Description", "Documentation", "Requires", "After", "Wants"],
      Service: ["Type", "DynamicUser", "EnvironmentFile", "LoadCredential", "ExecStart", "ExecReload", "TimeoutStopSec", "Restart", "RestartSec"],
      Socket: ["ListenStream", "BindIPv6Only"],
      Install: ["WantedBy"],
    };
    for (const unit of UNITS) {
      for (const [section, pairs] of parseUnit(read(unit))) {
        expect(Object.keys(known), unit).toContain(section);
        // The hardening keys of [Service] are systemd's own (Protect*, Restrict*, Private*, ...).
        const unknown = pairs.filter(
          ([k]) =>
            !known[section]!.includes(k) &&
            !(section === "Service" && /^(Protect|Restrict|Private|NoNewPrivileges|LockPersonality|CapabilityBoundingSet|SystemCall)/.test(k)),
        );
        expect(unknown, unit).toEqual([]);
      }
    }
  });

  it("start the exporter with flags it accepts, serving on the socket the socket unit opens, on the loopback only", () => {
    const [node, ...args] = execStart();
    expect(node).toBe("/usr/bin/node");
    const main = args.findIndex((a) => a.endsWith("/dist/main.js"));
    expect(main).toBeGreaterThan(0);
    expect(parseCommandLine(args.slice(main + 1))).toMatchObject({ flags: { "web.systemd-socket": "true" } });
    const service = parseUnit(read("trading-exporter.service"));
    expect(service.get("Unit")).toContainEqual(["Requires", "trading-exporter.socket"]);
    const listen = parseUnit(read("trading-exporter.socket"))
      .get("Socket")!
      .filter(([k]) => k === "ListenStream")
      .map(([, v]) => v);
    expect(listen).toEqual(["127.0.0.1:9842", "[::1]:9842"]);
  });
});
