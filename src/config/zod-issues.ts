// Every issue of a failed zod parse as a problem line naming its key path, in file order, with the nearest known key.
// Not z.prettifyError (two lines per issue, zod's words, path-length order) nor z.core.toDotPath (headers["X-Frame-Options"]).

import { z } from "zod";
import { type KeyPath, keyPath, meantWord, type Problems, valueAt } from "./errors.js";

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
