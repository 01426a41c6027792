// docs/development.md's "How a scrape flows" is the code: it names every file whose code runs for a /probe
// (the runtime imports, static or `import()`, reachable from the route's own code and from the middleware a
// web config puts before it), no file off that path, and in the code's order: each step's file is imported by
// a file named above it and by none named below.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("..", import.meta.url).pathname;
const APP = "src/http/app.ts";
/** The middleware a web config puts before every route (serve.ts loads it with import()): the other root of the path. */
const GUARDS = "src/http/toolkit/guards.ts";

function section(doc = readFileSync(join(ROOT, "docs/development.md"), "utf8")): string {
  return doc.split("## How a scrape flows")[1]?.split(/\n## |\n### /)[0] ?? "";
}

/** The numbered lines of the section, each with every src/ path it names (bare names resolved beside the first). */
function steps(text = section()): string[][] {
  const items = text
    .split("\n\nShared utilities")[0]!
    .split(/\n(?=\d+\. )/)
    .filter((item) => /^\d+\. /.test(item.trim()));
  return items.map((item) => {
    const names = [...item.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!);
    const first = names[0] ?? "";
    return names.map((name) => (name.startsWith("src/") ? name : join(dirname(first), name)));
  });
}

/** The files of the paragraph that lists the shared utilities, named once there and not in a step. */
function sharedUtilities(): string[] {
  const paragraph =
    section()
      .split("\n\n")
      .find((p) => p.startsWith("Shared utilities")) ?? "";
  return [...paragraph.matchAll(/`(src\/[\w./-]+\.ts)`/g)].map((m) => m[1]!);
}

interface Import {
  file: string;
  names: string[];
  /** Every name is imported as a type: nothing of the file runs for it. */
  typeOnly: boolean;
}

/** The src/ files `file` imports, with the names it takes from each. */
function importsOf(file: string): Import[] {
  return importsIn(readFileSync(join(ROOT, file), "utf8"), file);
}

/** The src/ files a source text at `file` imports: static imports with their names, and every `import("./x.js")`, which runs it. */
function importsIn(text: string, file: string): Import[] {
  const dynamic = [...text.matchAll(/\bimport\(\s*"(\.[^"]+)\.js"\s*\)/g)].map((m) => ({
    file: `${resolve(dirname(join(ROOT, file)), m[1]!).slice(ROOT.length)}.ts`,
    names: [],
    typeOnly: false,
  }));
  const statics = [...text.matchAll(/^import\s+([^;]*?)\s+from\s+"(\.[^"]+)\.js";/gm)].map((m) => {
    const spec = m[1]!;
    const braced = /\{([^}]*)\}/.exec(spec)?.[1] ?? "";
    const names = braced
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    const bare = spec
      .replace(/\{[^}]*\}/, "")
      .replace(/^type\s+/, "")
      .replace(/,/g, " ")
      .trim();
    const typeOnly = spec.startsWith("type ") || (bare === "" && names.length > 0 && names.every((n) => n.startsWith("type ")));
    return {
      file: `${resolve(dirname(join(ROOT, file)), m[2]!).slice(ROOT.length)}.ts`,
      names: [
        ...names.map(
          (n) =>
            n
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)
              .pop()!,
        ),
        ...(bare === "" ? [] : [bare]),
      ],
      typeOnly,
    };
  });
  return [...statics, ...dynamic];
}

/** Whether `file` has code that runs: a file of types alone (config/types.ts) has none. */
function hasCode(file: string): boolean {
  return /^export (async )?(const|function|class|let) /m.test(readFileSync(join(ROOT, file), "utf8"));
}

/** The text of the /probe route and of the functions of app.ts it calls. */
function probeRouteCode(): string {
  const app = readFileSync(join(ROOT, APP), "utf8");
  const block = (start: string, end: string): string => {
    const at = app.indexOf(start);
    expect(at, `${start} in ${APP}`).toBeGreaterThanOrEqual(0);
    return app.slice(at, app.indexOf(end, at) + end.length);
  };
  return [
    // What createApp makes before any route (the slots), then the route and what it calls.
    block("export function createApp(", "const app = express();"),
    block('routes.get("/probe"', "\n  });\n"),
    block("async function serveScrape(", "\n  }\n"),
    block("function probeTarget(", "\n  }\n"),
    block("function plain(", "\n}\n"),
  ].join("\n");
}

/** Every src/ file whose code can run for a /probe: the web config's middleware and app.ts, then the runtime imports reachable from them. */
function probePath(): Set<string> {
  const code = probeRouteCode();
  // The route reaches a module through a value it uses, or through an object named after a type it imports
  // (the `exporter` it is given is an Exporter); a type used only as a type runs nothing.
  const uses = (i: Import, name: string): boolean => [...code.matchAll(new RegExp(`\\b${name}\\b`, "gi"))].some((m) => !i.typeOnly || m[0] !== name);
  const entries = importsOf(APP)
    .filter((i) => i.names.some((name) => uses(i, name)))
    .map((i) => i.file);
  const path = new Set<string>([APP]);
  const queue = [GUARDS, ...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (path.has(file) || !hasCode(file)) continue;
    path.add(file);
    for (const i of importsOf(file)) if (!i.typeOnly && !path.has(i.file)) queue.push(i.file);
  }
  return path;
}

describe("docs/development.md: How a scrape flows", () => {
  const list = steps();
  const shared = sharedUtilities();

  it("names the path in at most 12 steps, each with a file of src/ that exists", () => {
    expect(list.length).toBeGreaterThanOrEqual(8);
    expect(list.length).toBeLessThanOrEqual(12);
    for (const names of [...list, shared]) {
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(existsSync(join(ROOT, name)), name).toBe(true);
    }
  });

  it("names every file the /probe route's code reaches, and none it does not", () => {
    const path = probePath();
    const named = new Set([...list.flat(), ...shared]);
    expect([...path].filter((file) => !named.has(file)).sort(), "on the path, missing from the document").toEqual([]);
    expect([...named].filter((file) => !path.has(file)).sort(), "in the document, not on the path").toEqual([]);
  });

  it("lists at most eight shared utilities, each named once in the section", () => {
    expect(shared.length).toBeLessThanOrEqual(8);
    for (const file of shared) expect(list.flat(), file).not.toContain(file);
  });

  it("starts from the middleware a web config runs, then the route", () => {
    expect(list[0]?.[0]).toBe(GUARDS);
    expect(list[1]?.[0]).toBe(APP);
  });

  it("follows the imports in order: each step's file is imported by a file named on a line above, and by none below", () => {
    expect(orderProblems(list)).toEqual([]);
  });

  it("is judged by checks that catch what they look for: two steps swapped, a file loaded by import()", () => {
    const swapped = [...list];
    [swapped[4], swapped[5]] = [swapped[5]!, swapped[4]!];
    expect(orderProblems(swapped)).not.toEqual([]);
    expect(importsIn('const { x } = await import("./toolkit/x.js");', APP)).toEqual([{ file: "src/http/toolkit/x.ts", names: [], typeOnly: false }]);
  });
});

/** Each step's first file after the two roots must be imported (at run time) by a file of a step above, and by no file of a step below. */
function orderProblems(list: string[][]): string[] {
  const importers = (target: string, files: string[], runtime: boolean) =>
    files.filter((file) => importsOf(file).some((i) => i.file === target && !(runtime && i.typeOnly)));
  const problems: string[] = [];
  for (let k = 0; k < list.length; k++) {
    const first = list[k]![0]!;
    const below = importers(first, list.slice(k + 1).flat(), true);
    if (below.length > 0) problems.push(`${first} is imported by ${below.join(", ")}, named below it`);
    if (first === GUARDS || first === APP) continue;
    const above = list.slice(0, k).flat();
    if (importers(first, above, false).length === 0) problems.push(`${first} is imported by none of the files above it`);
  }
  return problems;
}
