// Every issue of a failed zod parse as a problem line naming its key path, in file order, with the nearest known key.
// Not z.prettifyError (two lines per issue, zod's words, path-length order) nor z.core.toDotPath (headers["X-Frame-Options"]).

import { z } from "zod";
import { meantWord, type Problems } from "./problems.js";

export type KeyPath = ReadonlyArray<PropertyKey>;

function keyPath(path: KeyPath): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out === "" ? String(part) : `${out}.${String(part)}`), "");
}

/** Offsets of every key path in a parsed document, in document order (YAML keeps the file's order). */
export function documentOrder(data: unknown): (path: KeyPath) => number {
  const order = new Map<string, number>();
  // Each path's text grown from its parent's, as keyPath writes it: a large file's walk stays linear in its keys.
  const walk = (value: unknown, at: string): void => {
    order.set(at, order.size);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`));
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, at === "" ? k : `${at}.${k}`);
  };
  walk(data, "");
  return (path) => {
    // A missing key sorts where its nearest present parent is.
    for (let n = path.length; n >= 0; n--) {
      const at = order.get(keyPath(path.slice(0, n)));
      if (at !== undefined) return at;
    }
    return 0;
  };
}

/** The keys an object schema accepts at `path`; of a tagged union, the branch whose `type` is the data's. */
function knownKeys(schema: z.ZodType, path: KeyPath, data: unknown): string[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return knownKeys(schema.unwrap() as z.ZodType, path, data);
  // A transform reads its input schema's keys (`.transform()` makes a pipe from it).
  if (schema instanceof z.ZodPipe) return knownKeys(schema.in as z.ZodType, path, data);
  if (schema instanceof z.ZodUnion) {
    const tag = (data as { type?: unknown } | undefined)?.type;
    const branch = (schema.options as z.ZodType[]).find(
      (o) => o instanceof z.ZodObject && o.shape.type instanceof z.ZodLiteral && (o.shape.type.values as Set<unknown>).has(tag),
    );
    return branch === undefined ? [] : knownKeys(branch, path, data);
  }
  const [head, ...rest] = path;
  const child = (value: unknown) => (value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[head!] : undefined);
  if (schema instanceof z.ZodObject) return head === undefined ? Object.keys(schema.shape) : knownKeys(schema.shape[String(head)], rest, child(data));
  if (schema instanceof z.ZodArray && head !== undefined) return knownKeys(schema.element as z.ZodType, rest, child(data));
  if (schema instanceof z.ZodRecord && head !== undefined) return knownKeys(schema.valueType as z.ZodType, rest, child(data));
  return [];
}

/** ` (did you mean "word"?)` when `given` is text near one of `words`, else nothing. */
function didYouMean(given: unknown, words: readonly unknown[]): string {
  const guess =
    typeof given === "string"
      ? meantWord(
          given,
          words.filter((w): w is string => typeof w === "string"),
        )
      : undefined;
  return guess === undefined ? "" : ` (did you mean ${JSON.stringify(guess)}?)`;
}

function valueAt(data: unknown, path: KeyPath): unknown {
  return path.reduce<unknown>((value, key) => (value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined), data);
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
      // A discriminated union names the tag values it accepts.
      if ("options" in issue && issue.options !== undefined)
        return `expected one of ${issue.options.map((v) => JSON.stringify(v)).join(", ")}${didYouMean(given, issue.options)}`;
      return "does not match any accepted form";
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}${didYouMean(given, issue.values)}`;
    case "custom":
    case "invalid_format":
      // Our own texts: every refine and regex in our schemas passes one.
      return issue.message;
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      // zod's own wording never reaches the user (it may change with a zod release).
      return "not accepted here";
  }
}

export interface IssueContext {
  schema: z.ZodType;
  data: unknown;
  /** Where that data sits in the file ([] for the whole file) and what each line starts with ("web config: "). */
  at: KeyPath;
  label: string;
  order: (path: KeyPath) => number;
  source: number;
}

export function addZodIssues(error: z.ZodError, problems: Problems, context: IssueContext): void {
  const { at, label } = context;
  for (const issue of error.issues) {
    const path = [...at, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(context.schema, issue.path, context.data).filter((k) => !issue.keys.includes(k));
      for (const key of issue.keys) {
        problems.unknownKey(label, keyPath(path), key, known, [context.source, context.order([...path, key])]);
      }
      continue;
    }
    const where = keyPath(path);
    problems.add(`${label}${where === "" ? "(top level)" : where}`, describe(issue, valueAt(context.data, issue.path)), [context.source, context.order(path)]);
  }
}
