// Every command the README and docs/ show runs as shown from the repository root: the blocks marked `<!-- runs -->`
// (test/docs-commands.test.ts), `<!-- walkthrough -->` (test/docs-alerting-walkthrough.test.ts) or `<!-- output: -->`
// are run by their tests. The others cannot run on this machine (docker, kubectl, systemctl, a real venue, a
// placeholder to fill in, or the test suite itself): each is listed below with why and what is checked instead, that
// the files it names exist and parse and the flags, variables and npm scripts it uses are the exporter's. Inline
// commands in the prose name files that exist from the repository root.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../src/cli/flags.js";
import { knownVariables } from "../src/config/settings.js";
import { shardOf } from "../src/config/sharding.js";
import { REPO_ROOT, readDoc, userDocs } from "./helpers/markdown-docs.js";
import { readYaml, readYamlDocuments } from "./helpers/yaml-files.js";

interface Block {
  file: string;
  lineNo: number;
  script: string;
}

/** The sh, bash and console blocks no marker puts under a test. */
function unmarkedBlocks(file: string): Block[] {
  const lines = readDoc(file).split("\n");
  const blocks: Block[] = [];
  let open: { lineNo: number; lang: string; marked: boolean } | undefined;
  const body: string[] = [];
  lines.forEach((text, i) => {
    const fence = /^\s*```(\w*)/.exec(text);
    if (fence === null) {
      if (open !== undefined) body.push(text);
      return;
    }
    if (open === undefined) {
      open = { lineNo: i + 1, lang: fence[1]!, marked: /^<!-- (runs|walkthrough|output)\b/.test(lines[i - 1]?.trim() ?? "") };
      body.length = 0;
      return;
    }
    if (["sh", "bash", "console"].includes(open.lang) && !open.marked) blocks.push({ file, lineNo: open.lineNo, script: body.join("\n") });
    open = undefined;
  });
  return blocks;
}

const scripts = (): Record<string, string> => (JSON.parse(readDoc("package.json")) as { scripts: Record<string, string> }).scripts;
const exists = (path: string) => existsSync(join(REPO_ROOT, path));

/** Every TRADING_* variable the block sets is one the exporter reads. */
function knownVariablesOf(script: string): void {
  const used = [...script.matchAll(/\b(TRADING_[A-Z_]+)=/g)].map((m) => m[1]!);
  expect(used.filter((v) => !knownVariables().includes(v))).toEqual([]);
}

/** The exporter's flags the block passes parse. */
function exporterFlagsOf(script: string): void {
  const flags = script.match(/--(?:web|config|log|scrape|shard|total-shards)[\w.-]*(?:=\S+)?/g) ?? [];
  expect(() => parseCommandLine(flags)).not.toThrow();
}

interface NotRun {
  file: string;
  /** The block's first line begins so. */
  starts: string;
  why: string;
  check: (script: string) => void;
}

const NOT_RUN: NotRun[] = [
  {
    file: "README.md",
    starts: "npm install --prefix ~/.cache/node24 node@24",
    why: "installs Node 24 into the home folder (.ci/run installs it the same way)",
    check: () => expect(readDoc(".ci/run")).toContain('npm install --prefix "$node_dir"'),
  },
  {
    file: "docs/development.md",
    starts: "npm install --prefix ~/.cache/node24 node@24",
    why: "installs Node 24 into the home folder (.ci/run installs it the same way)",
    check: () => expect(readDoc(".ci/run")).toContain('npm install --prefix "$node_dir"'),
  },
  {
    file: "README.md",
    starts: "TRADING_BASE_URL=https://venue.example TRADING_API_KEY_FILE=/run/secrets/venue-key",
    why: "needs a real venue and its key file",
    check: (script) => {
      knownVariablesOf(script);
      expect(scripts().start).toBeDefined();
    },
  },
  {
    file: "docs/reverse-proxy.md",
    starts: "TRADING_BASE_URL=https://venue.example TRADING_API_KEY_FILE=/run/secrets/venue-key",
    why: "needs a real venue and its key file; test/reverse-proxy-nginx.test.ts runs the same flags behind nginx",
    check: (script) => {
      knownVariablesOf(script);
      exporterFlagsOf(script);
    },
  },
  {
    file: "README.md",
    starts: "docker compose -f deploy/compose/compose.yaml up --build",
    why: "needs Docker; test/packaging-compose.test.ts checks the stack's files",
    check: () => expect(readYaml("deploy/compose/compose.yaml")).toHaveProperty("services"),
  },
  {
    file: "docs/alerting.md",
    starts: "docker compose -f deploy/compose/compose.yaml up --build -d",
    why: "needs Docker; the same path runs on Debian's binaries in the walkthrough above it",
    check: () => expect(readYaml("deploy/compose/compose.yaml")).toHaveProperty("services.webhook"),
  },
  {
    file: "docs/alerting.md",
    starts: "vmalert -rule=prometheus/rules/trading.rules.yml",
    why: "names the compose network's hosts (victoria-metrics, alertmanager); test/victoriametrics-e2e.test.ts runs the path",
    check: () => {
      expect(readYaml("prometheus/rules/trading.rules.yml")).toHaveProperty("groups");
      expect(readYaml("prometheus/alertmanager/alertmanager.yml")).toHaveProperty("route");
    },
  },
  {
    file: "docs/deployment.md",
    starts: "cp examples/systemd/trading-exporter.service",
    why: "installs units into /etc/systemd and needs systemctl; test/systemd-units.test.ts verifies the units",
    check: (script) => {
      for (const unit of script.match(/examples\/systemd\/\S+/g) ?? []) expect(exists(unit), unit).toBe(true);
    },
  },
  {
    file: "docs/deployment.md",
    starts: "docker build -t trading-exporter:0.1.0",
    why: "needs Docker; .ci/image-recipe runs the Dockerfile's steps",
    check: () => expect(readDoc("Dockerfile")).toMatch(/^FROM node:/m),
  },
  {
    file: "docs/deployment.md",
    starts: "python3 -c 'import hashlib,sys;",
    why: "NAME and N are placeholders; checked here with names filled in, against the exporter's own shard",
    check: (script) => {
      for (const [name, n] of [
        ["main", 3],
        ["hedge", 7],
      ] as const) {
        const filled = script.replace(/ NAME N$/, ` ${name} ${n}`);
        expect(execFileSync("bash", ["-c", filled], { encoding: "utf8" }).trim()).toBe(String(shardOf(name, n)));
      }
    },
  },
  {
    file: "docs/deployment.md",
    starts: "victoria-metrics -storageDataPath=/var/lib/victoria-metrics",
    why: "long-running servers on the compose network's hosts; test/victoriametrics-e2e.test.ts runs them on port 0",
    check: () => expect(readYaml("examples/victoriametrics/vmagent.yml")).toHaveProperty("scrape_configs"),
  },
  {
    file: "docs/development.md",
    starts: "npm test ",
    why: "the suite itself, benchmarks of minutes and the generators: each is run by CI or its own test",
    check: (script) => {
      for (const name of script.match(/(?<=npm run )[\w:-]+/g) ?? []) expect(scripts()[name], `npm run ${name}`).toBeDefined();
      for (const path of script.match(/(?:\.ci|deploy|scripts|prometheus)\/[\w./-]+/g) ?? []) expect(exists(path), path).toBe(true);
    },
  },
  {
    file: "docs/simulator.md",
    starts: "curl -X PUT http://127.0.0.1:VENUE_PORT/_sim/faults",
    why: "VENUE_PORT is a placeholder for the port the simulator prints",
    check: (script) => {
      const control = readFileSync(join(REPO_ROOT, "tools/simulator/control.ts"), "utf8");
      for (const path of new Set(script.match(/\/_sim\/[\w/]+/g))) expect(control, path).toContain(`"${path}"`);
    },
  },
];

const blocks = userDocs().flatMap(unmarkedBlocks);

describe("commands the README and docs/ show that no test runs", () => {
  it("are each listed with why and what is checked instead", () => {
    const unlisted = blocks.filter((b) => !NOT_RUN.some((n) => n.file === b.file && b.script.startsWith(n.starts)));
    expect(unlisted.map((b) => `${b.file}:${b.lineNo} ${b.script.split("\n")[0]}`)).toEqual([]);
  });

  it.each(NOT_RUN)("$file: $starts (cannot run here: $why): what it names is checked", (entry) => {
    const block = blocks.find((b) => b.file === entry.file && b.script.startsWith(entry.starts));
    expect(block, "the listed block is still in the document").toBeDefined();
    entry.check(block!.script);
  });
});

describe("commands inline in the prose", () => {
  /** `promtool ...`, `node ...`, `bash ...`, `npm run ...` in code spans, outside fences. */
  function inlineCommands(file: string): string[] {
    const prose = readDoc(file).replace(/```[\s\S]*?```/g, "");
    return [...prose.replace(/\n/g, " ").matchAll(/`((?:promtool|amtool|node|bash|npm run|npx trading-exporter) [^`]+)`/g)].map((m) => m[1]!);
  }

  it.each(userDocs())("%s: name files that exist from the repository root, and npm scripts that exist", (file) => {
    for (const command of inlineCommands(file)) {
      const script = /^npm run ([\w:-]+)/.exec(command)?.[1];
      if (script !== undefined) expect(scripts()[script], `${file}: ${command}`).toBeDefined();
      const words = command.split(/\s+/).map((w) => w.replace(/^--[\w.-]+=/, ""));
      for (const path of words.filter((w) => /^[\w.-]+\/[\w./-]*\.\w+$/.test(w) || /\.(ya?ml|mjs|sh|json)$/.test(w))) {
        // The built files come from their sources: dist/ from src/, dist-bench/bench/ from bench/, dist-tools/tools/ from tools/.
        const source = path
          .replace(/^dist-bench\/bench\/(.*)\.js$/, "bench/$1.ts")
          .replace(/^dist-tools\/tools\/(.*)\.js$/, "tools/$1.ts")
          .replace(/^dist\/(.*)\.js$/, "src/$1.ts");
        expect(exists(source), `${file}: ${command} names ${path}`).toBe(true);
      }
    }
  });

  it("include the promtool commands alerting.md quotes, with their paths", () => {
    expect(inlineCommands("docs/alerting.md")).toContain("promtool test rules prometheus/rules/trading.rules.gaps.test.yml");
  });

  it("name YAML files that parse", () => {
    for (const file of userDocs()) {
      for (const command of inlineCommands(file)) {
        for (const path of command.split(/\s+/).filter((w) => /\.ya?ml$/.test(w) && exists(w))) expect(readYamlDocuments(path).length, path).toBeGreaterThan(0);
      }
    }
  });
});
