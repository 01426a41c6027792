// Output the docs show is what the code prints: the `--config.check` session of docs/configuration.md is run and
// compared line by line, and the benchmark output docs/benchmarks.md quotes is found in the benchmarks' sources.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAIN } from "./helpers/child.js";
import { codeSpansAfter, outputBlocks, REPO_ROOT, readDoc } from "./helpers/markdown-docs.js";

/** The TypeScript of the benchmarks, wherever they live (src/bench or a top-level bench/). */
function benchSources(): string {
  const texts: string[] = [];
  for (const dir of ["src/bench", "bench"].map((d) => join(REPO_ROOT, d)).filter(existsSync)) {
    for (const f of readdirSync(dir, { recursive: true, encoding: "utf8" })) if (f.endsWith(".ts")) texts.push(readFileSync(join(dir, f), "utf8"));
  }
  return texts.join("\n");
}

/** Every template literal of the sources as a regular expression of the lines it prints: `${...}` matches any text. */
function templates(source: string): RegExp[] {
  return [...source.matchAll(/`((?:[^`\\]|\\.)*)`/g)].map(
    (m) =>
      new RegExp(
        `^${m[1]!
          .split(/\$\{[^}]*\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".+?")}$`,
      ),
  );
}

describe("docs/configuration.md: the --config.check session", () => {
  const doc = readDoc("docs/configuration.md");
  const [session] = outputBlocks("docs/configuration.md", doc).filter((b) => b.lang === "console");

  it("is what the built command prints for the bad.yml shown above it", () => {
    expect(session, "docs/configuration.md shows no console session marked <!-- output: -->").toBeDefined();
    // The YAML block just above the session is bad.yml.
    const before = doc
      .split("\n")
      .slice(0, session!.lineNo - 1)
      .join("\n");
    const yaml = /```yaml\n([\s\S]*?)```\s*$/.exec(before.slice(0, before.lastIndexOf("<!-- output:")))?.[1];
    expect(yaml, "the session's bad.yml").toBeDefined();
    const work = mkdtempSync(join(tmpdir(), "docs-outputs-"));
    try {
      writeFileSync(join(work, "bad.yml"), yaml!);
      symlinkSync(join(REPO_ROOT, "examples"), join(work, "examples"));
      const commands: Array<{ command: string; shown: string[] }> = [];
      for (const line of session!.lines) {
        if (line.startsWith("$ ")) commands.push({ command: line.slice(2), shown: [] });
        else commands.at(-1)?.shown.push(line);
      }
      expect(commands.length).toBe(2);
      for (const { command, shown } of commands) {
        // `npx trading-exporter` is the clone's built command; run it directly, outside npm.
        const script = command.replace("npx trading-exporter", `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}`);
        expect(script, command).not.toBe(command);
        const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TRADING_|HEDGE_TOKEN$)/.test(k)));
        let stdout = "";
        let stderr = "";
        try {
          stdout = execFileSync("bash", ["-c", `${script} 2>stderr.txt`], { cwd: work, env, encoding: "utf8" });
        } catch (error) {
          stdout = String((error as { stdout?: unknown }).stdout ?? "");
        }
        stderr = readFileSync(join(work, "stderr.txt"), "utf8");
        const printed = [...stderr.split("\n"), ...stdout.split("\n")].filter((l) => l !== "");
        expect(printed, command).toEqual(shown);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe("docs/benchmarks.md: the benchmarks' output", () => {
  const doc = readDoc("docs/benchmarks.md");
  const source = benchSources();

  it("quotes, after each **Output.**, only text the benchmarks print", () => {
    const quoted = codeSpansAfter(doc, "**Output.**");
    expect(quoted.length).toBeGreaterThan(20);
    expect(quoted.filter((q) => !source.includes(q))).toEqual([]);
  });

  it("shows sample output whose every line a line of the benchmark's source prints", () => {
    const blocks = outputBlocks("docs/benchmarks.md", doc);
    expect(blocks.map((b) => b.source)).toContain("npm run soak");
    const printable = templates(source);
    for (const block of blocks) {
      expect(block.lines.length).toBeGreaterThan(3);
      expect(block.lines.filter((line) => !printable.some((t) => t.test(line)))).toEqual([]);
    }
  });

  it("says how long each benchmark command runs", () => {
    const scripts = Object.keys((JSON.parse(readDoc("package.json")) as { scripts: Record<string, string> }).scripts).filter(
      (s) => s === "soak" || s.startsWith("bench"),
    );
    expect(scripts.length).toBeGreaterThan(4);
    const rows = doc.split("\n").filter((l) => l.startsWith("| `npm run "));
    for (const script of scripts) {
      const row = rows.find((r) => r.startsWith(`| \`npm run ${script}\``) || r.startsWith(`| \`npm run ${script} `));
      expect(row, `the benchmark table has no row for npm run ${script}`).toBeDefined();
      expect(row!.split(" | ").at(-1), script).toMatch(/\d+ (s|minutes?)\b/);
    }
  });

  it("is a manual of at most 12 KB, as docs/performance.md is", () => {
    expect(Buffer.byteLength(doc)).toBeLessThanOrEqual(12_000);
    expect(Buffer.byteLength(readDoc("docs/performance.md"))).toBeLessThanOrEqual(12_000);
  });
});
