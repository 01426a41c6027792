// The config and web config files' YAML, and a schema's issues with it: a problem is one line in our words, never the file's text.

import { once } from "node:events";
import { Worker } from "node:worker_threads";
import * as yaml from "yaml";
import { z } from "zod";
import { ConfigError, type KeyPath, keyPath, meantWord, type Problems, valueAt } from "./errors.js";

/** What a YAML error code means, in words; BAD_INDENT and MISSING_CHAR say more by what the parser noticed. */
const YAML_PROBLEMS: Record<string, string> = {
  TAB_AS_INDENT: "a tab indents this line; YAML indents with spaces",
  DUPLICATE_KEY: "this key is given twice in the same map",
  BAD_INDENT: "this line is not indented as YAML expects here",
  MISSING_CHAR: "a closing quote, bracket or comma is missing",
  BLOCK_AS_IMPLICIT_KEY: "a value holds a colon followed by a space; quote the value",
  MULTILINE_IMPLICIT_KEY: "a key runs over more than one line",
  UNEXPECTED_TOKEN: "unexpected text here",
  BAD_DQ_ESCAPE: "a bad escape in double-quoted text",
  BAD_SCALAR_START: "a value starts with a character YAML reserves; quote the value",
  MULTIPLE_DOCS: "more than one document (---) in the file",
  KEY_OVER_1024_CHARS: "a key longer than 1024 characters",
};

/** The words for one of the parser's errors: its code, and for some codes what its own message says it noticed (never shown). */
function yamlProblem(code: string, message: string): string {
  if (/^Flow sequence/.test(message)) return "a list opened with [ is not closed with ] (or not indented under its key)";
  if (/^Flow map/.test(message)) return "a map opened with { is not closed with } (or not indented under its key)";
  if (/^Missing closing .?quote/.test(message)) return "a quoted value is not closed";
  if (/mapping items must start at the same column/.test(message)) return "the keys of one map do not start at the same column";
  if (/sequence items must start at the same column/.test(message)) return "the items of one list do not start at the same column";
  return YAML_PROBLEMS[code] ?? `not YAML the parser reads (${code})`;
}

/** What reading a YAML text came to, plain data that crosses to and from a worker thread; `message` is the parser's, never shown. */
type Read = { data: unknown } | { problem: { code: string; message: string; line: number; col: number } } | { aliases: true };

// Refuses a key given twice in a map (a set per map: yaml's own check is quadratic) and aliases past 100 uses (yaml's
// guard). It refers to nothing outside itself: a worker thread runs it from its text.
function readYaml(y: typeof import("yaml"), source: string): Read {
  const lineCounter = new y.LineCounter();
  const doc = y.parseDocument(source, { uniqueKeys: false, prettyErrors: false, lineCounter });
  const at = (code: string, message: string, pos: number): Read => ({ problem: { code, message, ...lineCounter.linePos(pos) } });
  const error = doc.errors[0];
  if (error !== undefined) return at(error.code, error.message, error.pos[0]);
  let duplicate: number | undefined;
  y.visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      const twice = map.items.find(({ key }) => y.isScalar(key) && seen.size === seen.add(key.value).size);
      if (twice === undefined) return undefined;
      duplicate = (twice.key as { range?: [number] }).range?.[0] ?? 0;
      return y.visit.BREAK;
    },
  });
  if (duplicate !== undefined) return at("DUPLICATE_KEY", "", duplicate);
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }) };
  } catch (thrown) {
    if (thrown instanceof ReferenceError) return { aliases: true };
    throw thrown;
  }
}

function dataOf(read: Read, label: string): unknown {
  if ("data" in read) return read.data;
  if ("aliases" in read) throw new ConfigError(`${label}: its YAML aliases (*name) expand to too much; refused`);
  const { code, message, line, col } = read.problem;
  throw new ConfigError(`${label}: not valid YAML at line ${line}, column ${col}: ${yamlProblem(code, message)}`);
}

/** Duplicate keys and alias bombs refused; bad YAML is one line (where, and what in our words), never its text or the parser's message. */
export function parseYaml(source: string, label: string): unknown {
  return dataOf(readYaml(yaml, source), label);
}

/** The worker's whole program: `readYaml` from its own text, so src/ under vitest and dist/ run the same. */
const PROGRAM = `
import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const y = await import(workerData.yaml);
  parentPort.postMessage((${readYaml.toString()})(y, workerData.source));
});`;

/** As `parseYaml`, on a worker thread: a 1 MiB file takes about 2 s to parse, which a reload must not hold the event loop for. */
export async function parseYamlAside(source: string, label: string): Promise<unknown> {
  const worker = new Worker(PROGRAM, { eval: true, workerData: { yaml: import.meta.resolve("yaml"), source } });
  try {
    const [read] = (await once(worker, "message")) as [Read];
    return dataOf(read, label);
  } finally {
    void worker.terminate();
  }
}

// A schema's issues in our words, not z.prettifyError's (two lines per issue, zod's words, path-length order).

/** The keys an object schema accepts at `path`; of a tagged union, the branch whose `type` is the data's. */
function knownKeys(schema: z.ZodType, path: KeyPath, data: unknown): string[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return knownKeys(schema.unwrap() as z.ZodType, path, data);
  // A transform reads its input schema's keys (`.transform()` makes a pipe from it).
  if (schema instanceof z.ZodPipe) return knownKeys(schema.in as z.ZodType, path, data);
  if (schema instanceof z.ZodUnion) {
    const tag = (data as { type?: unknown } | undefined)?.type;
    const branch = (schema.options as z.ZodType[]).find((o) => o instanceof z.ZodObject && o.shape.type?.safeParse(tag).success);
    return branch === undefined ? [] : knownKeys(branch, path, data);
  }
  const [head, ...rest] = path;
  if (schema instanceof z.ZodObject) return head === undefined ? Object.keys(schema.shape) : knownKeys(schema.shape[String(head)], rest, valueAt(data, [head]));
  return [];
}

function didYouMean(given: unknown, words: readonly unknown[]): string {
  const texts = words.filter((w): w is string => typeof w === "string");
  const guess = typeof given === "string" ? meantWord(given, texts) : undefined;
  return guess === undefined ? "" : ` (did you mean ${JSON.stringify(guess)}?)`;
}

/** The issue in our words; `given` is the value it is about, for a "did you mean". */
function describe(issue: z.core.$ZodIssue, given: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : `expected ${issue.expected}`;
    case "too_small":
      return `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    case "invalid_union":
    case "invalid_value": {
      // A discriminated union names the tag values it accepts, as an enum does.
      const values = "values" in issue ? issue.values : "options" in issue ? (issue.options as unknown[] | undefined) : undefined;
      if (values === undefined) return "does not match any accepted form";
      return `expected one of ${values.map((v) => JSON.stringify(v)).join(", ")}${didYouMean(given, values)}`;
    }
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "custom":
    case "invalid_format":
      // Our own texts: every refine and regex in our schemas passes one.
      return issue.message;
    default:
      // zod's own wording never reaches the user (it may change with a zod release).
      return "not accepted here";
  }
}

/** Each issue of parsing `data` (found at `at` in the file of `problems`) with `schema`; `label` starts each line ("web config: "). */
export function addZodIssues(
  error: z.ZodError,
  problems: Problems,
  { schema, data, at, label }: { schema: z.ZodType; data: unknown; at: KeyPath; label: string },
): void {
  for (const issue of error.issues) {
    const path = [...at, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(schema, issue.path, data).filter((k) => !issue.keys.includes(k));
      for (const key of issue.keys) problems.unknownKey(keyPath(path), key, known, [...path, key], label);
      continue;
    }
    problems.add(`${label}${keyPath(path) || "(top level)"}`, describe(issue, valueAt(data, issue.path)), path);
  }
}
