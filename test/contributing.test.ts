// CONTRIBUTING.md's paths stay true: every file it names exists, and the authentication-scheme path
// lists every file of the exporter that names a scheme (so a new scheme misses none of them).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../", import.meta.url).pathname;
const TEXT = readFileSync(join(ROOT, "CONTRIBUTING.md"), "utf8");

/** The text of one `## ` section of CONTRIBUTING.md. */
function section(title: string): string {
  const start = TEXT.indexOf(`## ${title}\n`);
  if (start < 0) throw new Error(`CONTRIBUTING.md has no section "${title}"`);
  const end = TEXT.indexOf("\n## ", start + 1);
  return TEXT.slice(start, end < 0 ? undefined : end);
}

/** The `src/...` and `test/...` files a text names in backticks (a `<name>` placeholder is skipped). */
const namedFiles = (text: string): string[] => [...text.matchAll(/`((?:src|test)\/[^`<>*\s]+\.(?:ts|mjs))`/g)].map((m) => m[1]!);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [relative(ROOT, join(dir, e.name))] : [],
  );
}

/** Files of the exporter that name a scheme: the simulated venue and the webhook are other programs. */
function filesNaming(literal: string): string[] {
  return sourceFiles(join(ROOT, "src"))
    .filter((f) => !/^src\/(simulator|webhook)\//.test(f))
    .filter((f) => readFileSync(join(ROOT, f), "utf8").includes(literal));
}

describe("CONTRIBUTING.md", () => {
  it("names only files that exist", () => {
    const named = namedFiles(TEXT);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  it("lists, for a new authentication scheme, every file that names one", () => {
    const listed = namedFiles(section("Adding an authentication scheme"));
    const naming = filesNaming('"bearer"');
    expect(naming).toContain("src/venue/auth.ts");
    expect(naming.filter((f) => !listed.includes(f))).toEqual([]);
    // A scheme lives in two files besides its rows of SETTINGS: its definition and how it goes on a request.
    expect(naming).toHaveLength(2);
  });
});
