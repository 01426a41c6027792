// Comments stay a small share of the product code, as in node_exporter: the invariants and reasons, not
// history or measurements (those go in commit messages and docs/performance.md).

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = new URL("../src", import.meta.url).pathname;
const MAX_SHARE = 0.1;

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? productFiles(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Non-blank lines and comment lines (`//`, or inside a block comment) of a TypeScript text. */
function commentCount(text: string): { lines: number; comments: number } {
  let lines = 0;
  let comments = 0;
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    lines++;
    if (inBlock) {
      comments++;
      if (line.includes("*/")) inBlock = false;
    } else if (line.startsWith("//")) {
      comments++;
    } else if (line.startsWith("/*")) {
      comments++;
      inBlock = !line.slice(2).includes("*/");
    }
  }
  return { lines, comments };
}

describe("comments in the product code", () => {
  it("count lines as a reader sees them: line comments, block comments, code", () => {
    expect(commentCount("// a\nconst x = 1; // trailing is code\n\n/**\n * b\n */\n/* c */\nf();\n")).toEqual({ lines: 7, comments: 5 });
  });

  it(`are at most ${MAX_SHARE * 100}% of the non-blank lines of src/ (the exporter alone: the simulator, webhook and demo live in tools/)`, () => {
    const files = productFiles(SRC);
    const counts = files.map((file) => ({ file: relative(SRC, file), ...commentCount(readFileSync(file, "utf8")) }));
    const lines = counts.reduce((n, c) => n + c.lines, 0);
    const comments = counts.reduce((n, c) => n + c.comments, 0);
    const most = counts
      .sort((a, b) => b.comments - a.comments)
      .slice(0, 5)
      .map((c) => `${c.file} ${c.comments}/${c.lines}`);
    expect(files.length).toBeGreaterThan(50);
    expect(comments / lines, `${comments} comment lines of ${lines}; most in ${most.join(", ")}`).toBeLessThanOrEqual(MAX_SHARE);
  });
});
