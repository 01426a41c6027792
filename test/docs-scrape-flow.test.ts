// docs/development.md's "How a scrape flows" stays true: each file it names exists, the list stays short,
// and each line's file is imported by a file named on a line above it, so the order is the code's.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url).pathname;

/** The numbered lines of the section, each with every src/ path it names (bare names resolved beside the first). */
function steps(): string[][] {
  const doc = readFileSync(join(ROOT, "docs/development.md"), "utf8");
  const section = doc.split("## How a scrape flows")[1]?.split(/\n## |\n### /)[0] ?? "";
  const items = section.split(/\n(?=\d+\. )/).filter((item) => /^\d+\. /.test(item.trim()));
  return items.map((item) => {
    const names = [...item.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!);
    const first = names[0] ?? "";
    return names.map((name) => (name.startsWith("src/") ? name : join(dirname(first), name)));
  });
}

/** The src/ files `file` imports, as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/from "(\.[^"]+)\.js"/g)].map((m) => `${resolve(dirname(join(ROOT, file)), m[1]!).slice(ROOT.length)}.ts`);
}

describe("docs/development.md: How a scrape flows", () => {
  const list = steps();

  it("names the path in at most 12 steps, each with a file of src/ that exists", () => {
    expect(list.length).toBeGreaterThanOrEqual(8);
    expect(list.length).toBeLessThanOrEqual(12);
    for (const names of list) {
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(existsSync(join(ROOT, name)), name).toBe(true);
    }
  });

  it("follows the imports: each step's file is imported by a file named on a line above", () => {
    for (let k = 1; k < list.length; k++) {
      const above = list.slice(0, k).flat();
      const importedBy = above.filter((file) => importsOf(file).includes(list[k]![0]!));
      expect(importedBy, `${list[k]![0]} is imported by none of ${above.join(", ")}`).not.toEqual([]);
    }
  });
});
