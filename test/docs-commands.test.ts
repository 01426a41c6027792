// Every command block the README and docs/ mark `<!-- runs -->`, and each example file's "Validate with" line,
// runs as written in a fresh copy of the repository (the files git would commit, no node_modules, no dist),
// in the order a reader meets them: the README's first block is the quick start's `npm ci`.

import { type ChildProcess, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, type RunnableBlock, readDoc, runnableBlocks, userDocs } from "./helpers/markdown-docs.js";
import { exited, type ShellBlock, startBlock, stopBlock } from "./helpers/shell-block.js";

/** npm ci, a build and a server start on a busy 2-core machine. */
const BLOCK_TIMEOUT_MS = 240_000;

/** The "Validate with:" line of each example file, a command like the documents' blocks. */
function exampleValidateLines(): RunnableBlock[] {
  const dir = join(REPO_ROOT, "examples");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yml"))
    .sort()
    .flatMap((f) => {
      const file = `examples/${f}`;
      return readDoc(file)
        .split("\n")
        .flatMap((line, i) => {
          const m = /^# Validate with: (.+)$/.exec(line);
          return m ? [{ file, lineNo: i + 1, serves: false, script: m[1]! }] : [];
        });
    });
}

const blocks: RunnableBlock[] = [...userDocs().flatMap((file) => runnableBlocks(file, readDoc(file))), ...exampleValidateLines()];

/** The environment of a new shell: this Node first on PATH, no TRADING_* or npm run-script variables of ours,
 *  and every listener on a free port (the demo and the exporter read TRADING_LISTEN_ADDRESS). */
function freshEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(TRADING_|HEDGE_TOKEN$|npm_|INIT_CWD$|VITEST)/.test(k)) env[k] = v;
  }
  env.PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;
  env.TRADING_LISTEN_ADDRESS = "127.0.0.1:0";
  return env;
}

/** Starts a block's script in its own process group, so stopping it stops npm and the node under it. */
function start(block: RunnableBlock, cwd: string): ShellBlock {
  return startBlock(block.script, cwd, freshEnv());
}

const stop = stopBlock;

/** The URL a serving block prints: the demo's `open URL`, or a server's `listening on URL`. */
function printedUrl(child: ChildProcess, output: () => string): Promise<string> {
  const find = () => /(?:^|\n)(?:open |.*listening on )(http:\/\/\S+)/.exec(output())?.[1];
  return new Promise((resolve, reject) => {
    const look = () => {
      const url = find();
      if (url !== undefined) {
        child.stdout?.off("data", look);
        child.stderr?.off("data", look);
        resolve(url);
      }
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    child.once("exit", (code) => reject(new Error(`exited ${code} before printing a URL:\n${output()}`)));
    look();
  });
}

let copy = "";

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), "docs-commands-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "");
  for (const f of files) {
    mkdirSync(join(copy, dirname(f)), { recursive: true });
    cpSync(join(REPO_ROOT, f), join(copy, f), { errorOnExist: false, force: true, recursive: false });
  }
});

afterAll(() => {
  if (copy !== "") rmSync(copy, { recursive: true, force: true });
});

describe("commands the documents show", () => {
  it("mark the ones a reader starts with", () => {
    const scripts = blocks.map((b) => b.script).join("\n");
    expect(blocks[0]?.file).toBe("README.md");
    expect(blocks[0]?.script).toMatch(/^npm ci && npm run demo\b/);
    for (const command of [
      "npx trading-exporter --help",
      "npx trading-exporter --config.file examples/trading-exporter.yml --config.check",
      "bash examples/make-test-cert.sh",
      "--web.config.file examples/web-config.yml --config.check",
      "promtool test rules prometheus/rules/trading.rules.test.yml",
    ]) {
      expect(scripts, command).toContain(command);
    }
  });

  it(
    "after `npm ci` alone, as the README says, `npx trading-exporter` and `./dist/main.js` run",
    async () => {
      const alone: RunnableBlock = {
        file: "README.md",
        lineNo: 0,
        serves: false,
        script: "npm ci --no-audit --no-fund\nnpx trading-exporter --version\n./dist/main.js --version",
      };
      const { child, output } = start(alone, copy);
      try {
        expect(await exited(child), output()).toBe(0);
        expect(output()).toMatch(/^trading-exporter, version .*\n(?:.*\n)*trading-exporter, version /m);
      } finally {
        await stop(child);
      }
    },
    BLOCK_TIMEOUT_MS,
  );

  for (const block of blocks) {
    it(
      `${block.file}:${block.lineNo} ${block.serves ? "serves" : "runs"}: ${block.script.split("\n")[0]}`,
      async () => {
        const { child, output } = start(block, copy);
        try {
          if (block.serves) {
            const url = await printedUrl(child, output);
            const answer = await fetch(url, { signal: AbortSignal.timeout(30_000) });
            expect(answer.status, output()).toBe(200);
            // The demo's page is the exporter's metrics of the simulated account.
            if (url.endsWith("/metrics")) expect(await answer.text()).toMatch(/^trading_up\{account="demo"\} 1$/m);
          } else {
            expect(await exited(child), output()).toBe(0);
          }
        } finally {
          await stop(child);
        }
      },
      BLOCK_TIMEOUT_MS,
    );
  }
});
