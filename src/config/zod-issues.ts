// Turns every issue of a failed zod parse into a problem line naming its key path, in file order,
// with the nearest known key for an unknown one: "accounts[0].colateral_ids: unknown key (did you mean collateral_ids?)".
// Not z.prettifyError: it gives two lines per issue in zod's own words, ordered by path length, not by the file. Not
// z.core.toDotPath: it writes a key such as a header name as headers["X-Frame-Options"], where users see headers.X-Frame-Options.

import type { z } from "zod";
import type { Problems } from "./problems.js";

export type KeyPath = ReadonlyArray<PropertyKey>;

export function keyPath(path: KeyPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Offsets of every key path in a parsed document, in document order (YAML keeps the file's order). */
export function documentOrder(data: unknown): (path: KeyPath) => number {
  const order = new Map<string, number>();
  const walk = (value: unknown, path: PropertyKey[]): void => {
    order.set(keyPath(path), order.size);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  walk(data, []);
  return (path) => {
    // A missing key sorts where its nearest present parent is.
    for (let n = path.length; n >= 0; n--) {
      const at = order.get(keyPath(path.slice(0, n)));
      if (at !== undefined) return at;
    }
    return 0;
  };
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function valueAt(data: unknown, path: KeyPath): unknown {
  let value = data;
  for (const part of path) value = value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  return value;
}

/** The keys an object schema accepts at `path` (a union picks the branch whose `type` matches the data). */
function knownKeys(schema: z.ZodType, path: KeyPath, data: unknown, depth = 0): string[] {
  let def = defOf(schema);
  while (def.innerType !== undefined || def.in !== undefined) def = defOf(def.innerType ?? def.in!);
  if (def.type === "union") {
    const options = def.options ?? [];
    const tag = (valueAt(data, []) as { type?: unknown } | undefined)?.type;
    const branch = options.find((o) => {
      const literal = defOf(o).shape?.type;
      return literal !== undefined && (defOf(literal) as { values?: unknown[] }).values?.includes(tag);
    });
    return branch === undefined ? [...new Set(options.flatMap((o) => knownKeys(o, path, data, depth)))] : knownKeys(branch, path, data, depth);
  }
  const [head, ...rest] = path;
  if (head === undefined) return def.shape === undefined ? [] : Object.keys(def.shape);
  const next = typeof head === "number" ? def.element : (def.shape?.[String(head)] ?? def.valueType);
  return next === undefined || depth > 20 ? [] : knownKeys(next, rest, valueAt(data, [head]), depth + 1);
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "required" : `expected ${issue.expected}`;
    case "too_small":
      return `must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `must be at most ${String(issue.maximum)}`;
    case "invalid_union": {
      // A discriminated union names the tag values it accepts.
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return `expected one of ${options.map((v) => JSON.stringify(v)).join(", ")}`;
      return "does not match any accepted form";
    }
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
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
  /** The data the schema was given. */
  data: unknown;
  /** Where that data sits in the file ([] for the whole file) and what each line starts with ("web config: "). */
  at: KeyPath;
  label: string;
  order: (path: KeyPath) => number;
  source: number;
}

/** Adds every issue of `error` to `problems`. */
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
    problems.add(`${label}${where === "" ? "(top level)" : where}`, describe(issue), [context.source, context.order(path)]);
  }
}
