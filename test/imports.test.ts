// Imports flow one way: from the HTTP face down to the venue client and utilities. A file may import its
// own layer or a lower one, never a higher one, and no files import each other in a circle.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = new URL("../src/", import.meta.url).pathname;

/** Layers from the bottom up: a folder (or top-level file) of src/ and its rank. Same rank: no import either way expected. */
const LAYERS: Record<string, number> = {
  util: 0,
  version: 0,
  config: 2,
  log: 3,
  venue: 4,
  scrape: 5,
  metrics: 6,
  collectors: 7,
  "debug-report": 8,
  "endpoint-health": 8,
  "scrape-answers": 9,
  http: 10,
  lifecycle: 11,
  cli: 12,
  command: 13,
  main: 14,
};

/** Imports allowed to run back up, each with the reason it must; empty, and meant to stay so. */
const EXCEPTIONS = new Set<string>([]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const layerOf = (file: string): string => {
  const [head] = relative(SRC, file).split("/") as [string];
  return head.replace(/\.ts$/, "");
};

/** The relative specifiers a source text imports (static, dynamic, type-only and re-exports), in either quote. */
function importsIn(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)(["'])(\.{1,2}\/[^"']+)\1/g)].map((m) => m[2]!);
}

/** Every relative import of every file of src/. */
function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const targets = importsIn(readFileSync(file, "utf8")).map((spec) => relative(SRC, join(dirname(file), spec.replace(/\.js$/, ".ts"))));
    edges.set(relative(SRC, file), targets);
  }
  return edges;
}

function upward(edges: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const edge = `${from} -> ${to}`;
      if (LAYERS[layerOf(join(SRC, from))]! < LAYERS[layerOf(join(SRC, to))]! && !EXCEPTIONS.has(edge)) found.push(edge);
    }
  }
  return found;
}

function circles(edges: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      found.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const to of edges.get(file) ?? []) visit(to, [...path, file]);
    state.set(file, "done");
  };
  for (const file of edges.keys()) visit(file, []);
  return found;
}

/** The longest chain of imports from `from`, type-only included, as the files it runs through. */
function longestChain(edges: Map<string, string[]>, from: string, known = new Map<string, string[]>()): string[] {
  const kept = known.get(from);
  if (kept !== undefined) return kept;
  let best = [from];
  for (const to of edges.get(from) ?? []) {
    const chain = [from, ...longestChain(edges, to, known)];
    if (chain.length > best.length) best = chain;
  }
  known.set(from, best);
  return best;
}

describe("imports", () => {
  const edges = graph();

  it("make a house at most 12 files tall: the longest chain from main.ts, type-only imports included", () => {
    const chain = longestChain(edges, "main.ts");
    expect(chain.length, chain.join(" -> ")).toBeLessThanOrEqual(12);
    // A check that can fail: the chain runs from the entry point down to util/ or config/.
    expect(chain.length).toBeGreaterThan(5);
  });

  it("place every file of src/ in a layer", () => {
    expect(edges.size).toBeGreaterThan(50);
    expect([...edges.keys()].filter((f) => LAYERS[layerOf(join(SRC, f))] === undefined)).toEqual([]);
  });

  it("never run from a lower layer to a higher one", () => {
    expect(upward(edges)).toEqual([]);
  });

  it("stay inside src/: the product never imports the benchmarks (bench/)", () => {
    expect([...edges.entries()].flatMap(([from, targets]) => targets.filter((to) => to.startsWith("..")).map((to) => `${from} -> ${to}`))).toEqual([]);
  });

  it("leave the tools' simulator and webhook receiver programs of their own: of src/ they use only util/", () => {
    const TOOLS = new URL("../tools/", import.meta.url).pathname;
    const reaches = ["simulator", "webhook"].flatMap((tool) =>
      files(join(TOOLS, tool)).flatMap((file) =>
        importsIn(readFileSync(file, "utf8"))
          .map((spec) => relative(SRC, join(dirname(file), spec)))
          .filter((to) => !to.startsWith("..") && !to.startsWith("util/"))
          .map((to) => `${relative(TOOLS, file)} -> src/${to}`),
      ),
    );
    expect(reaches).toEqual([]);
  });

  it("form no circle between files", () => {
    expect(circles(edges)).toEqual([]);
  });

  it("are judged by checks that catch what they look for", () => {
    const bad = new Map([
      ["config/load.ts", ["cli/flags.ts"]],
      ["http/a.ts", ["http/b.ts"]],
      ["http/b.ts", ["http/a.ts"]],
    ]);
    expect(upward(bad)).toEqual(["config/load.ts -> cli/flags.ts"]);
    expect(circles(bad)).toEqual(["http/a.ts -> http/b.ts -> http/a.ts"]);
    // The parser sees static, type-only, dynamic and re-exported imports, in double or single quotes
    // (the linter does not check quotes, so a single-quoted upward import must not slip past).
    expect(
      importsIn(
        `import { a } from '../http/app.js';\nimport type { B } from "./b.js";\nexport * from '../c.js';\nconst d = await import('../d.js');\nimport './e.js';`,
      ),
    ).toEqual(["../http/app.js", "./b.js", "../c.js", "../d.js", "./e.js"]);
    expect(edges.get("cli/flags.ts")).toContain("config/settings.ts");
    expect(edges.get("config/load.ts")).toContain("config/file.ts");
  });
});
