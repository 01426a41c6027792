// docs/development.md's "How a scrape flows" is the code: a real /probe, behind a web config's basic auth, runs each
// step's function, each the first time after the step above's (a trace by spies, not a reading of imports); and the
// section names every file whose code runs for a /probe (the runtime imports, static or `import()`, reachable from
// the server, the route's own code and the middleware a web config puts before it), no file off that path.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { webGuards } from "../src/http/toolkit/guards.js";
import { startStack, type Stack } from "./helpers/stack.js";

const ROOT = new URL("..", import.meta.url).pathname;
const APP = "src/http/app.ts";
/** What every request meets first: the listener and its connection cap. */
const SERVER = "src/http/server.ts";
/** The middleware a web config puts before every route (command.ts loads it with import()): the other root of the path. */
const GUARDS = "src/http/toolkit/guards.ts";

function section(doc = readFileSync(join(ROOT, "docs/development.md"), "utf8")): string {
  return doc.split("## How a scrape flows")[1]?.split(/\n## |\n### /)[0] ?? "";
}

function items(text = section()): string[] {
  return text
    .split("\n\nShared utilities")[0]!
    .split(/\n(?=\d+\. )/)
    .filter((item) => /^\d+\. /.test(item.trim()));
}

/** The numbered lines of the section, each with every src/ path it names (a bare name beside the last path before it). */
function steps(text = section()): string[][] {
  return items(text).map((item) => {
    let last = "";
    return [...item.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => {
      const name = m[1]!;
      if (name.startsWith("src/")) last = name;
      return name.startsWith("src/") ? name : join(dirname(last), name);
    });
  });
}

/** Each step's file and the function of it the step says runs first: "1. `src/x.ts`, `Name.method`: ...". */
function stepFunctions(text = section()): Array<{ file: string; fn: string }> {
  return items(text).map((item) => {
    const m = /^\d+\. `(src\/[\w./-]+\.ts)`, `([\w$]+(?:\.[\w$]+)?)`/.exec(item.trim());
    return { file: m?.[1] ?? "", fn: m?.[2] ?? "" };
  });
}

/** A spy on the step's function: a class's method on its prototype, an object's method, or a module's function. */
async function spyOnStep({ file, fn }: { file: string; fn: string }): Promise<MockInstance> {
  const module = (await import(join(ROOT, file))) as Record<string, unknown>;
  const [owner, method] = fn.includes(".") ? (fn.split(".") as [string, string]) : [undefined, fn];
  if (owner === undefined) return vi.spyOn(module as Record<string, () => unknown>, method);
  const target = module[owner] as { prototype?: object } | object;
  const holder = typeof target === "function" ? (target as { prototype: object }).prototype : target;
  return vi.spyOn(holder as Record<string, () => unknown>, method);
}

/** The steps whose function never ran, and those whose function first ran before the step above's. */
function traceProblems(list: Array<{ fn: string }>, firstCalls: Array<number | undefined>): string[] {
  const problems = list.flatMap((s, i) => (firstCalls[i] === undefined ? [`${s.fn} never ran`] : []));
  for (let i = 1; i < list.length; i++) {
    const [before, now] = [firstCalls[i - 1], firstCalls[i]];
    if (before !== undefined && now !== undefined && now < before) problems.push(`${list[i]!.fn} ran before ${list[i - 1]!.fn}`);
  }
  return problems;
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

/** Every src/ file whose code can run for a /probe: the server, the web config's middleware and app.ts, then the runtime imports reachable from them. */
function probePath(): Set<string> {
  const code = probeRouteCode();
  // The route reaches a module through a value it uses, or through an object named after a type it imports
  // (the `exporter` it is given is an Exporter); a type used only as a type runs nothing.
  const uses = (i: Import, name: string): boolean => [...code.matchAll(new RegExp(`\\b${name}\\b`, "gi"))].some((m) => !i.typeOnly || m[0] !== name);
  const entries = importsOf(APP)
    .filter((i) => i.names.some((name) => uses(i, name)))
    .map((i) => i.file);
  const path = new Set<string>([APP]);
  const queue = [SERVER, GUARDS, ...entries];
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

  it("follows a file loaded by import() as one that runs", () => {
    expect(importsIn('const { x } = await import("./toolkit/x.js");', APP)).toEqual([{ file: "src/http/toolkit/x.ts", names: [], typeOnly: false }]);
  });

  it("starts at the socket, then the middleware a web config runs, then the route", () => {
    expect(list[0]).toContain(SERVER);
    expect(list[1]).toContain(GUARDS);
    expect(list[2]).toContain(APP);
  });
});

describe("docs/development.md: How a scrape flows, traced", () => {
  const list = stepFunctions();
  let stack: Stack;
  beforeAll(async () => {
    const guards = webGuards({ tls: undefined, basicAuthUsers: { alice: bcrypt.hashSync("secret", 4) }, headers: {} });
    stack = await startStack({ guards });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await stack.close();
  });

  it("names in each step a file of src/ and a function of it", () => {
    expect(list.length).toBe(steps().length);
    expect(list.filter((s) => s.file === "" || s.fn === "")).toEqual([]);
  });

  it("is the order a real /probe runs: each step's function runs, the first time after the step above's", async () => {
    const spies = await Promise.all(list.map(spyOnStep));
    const res = await stack.get(`/probe?target=${encodeURIComponent(stack.config.accounts[0]!.name)}`, {
      authorization: `Basic ${Buffer.from("alice:secret").toString("base64")}`,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const firstCalls = spies.map((spy) => spy.mock.invocationCallOrder[0]);
    expect(traceProblems(list, firstCalls)).toEqual([]);
    // The check catches what it looks for: two steps swapped, and a step whose function never ran.
    expect(traceProblems([list[1]!, list[0]!], [firstCalls[1], firstCalls[0]])).not.toEqual([]);
    expect(traceProblems(list.slice(0, 1), [undefined])).toEqual([`${list[0]!.fn} never ran`]);
  });
});
