// Turns a zod validation failure into one line naming the key path: "accounts[1].auth.header_name: required".

import type { z } from "zod";
import { ConfigError } from "./errors.js";

function keyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(top level)" : out;
}

function describe(issue: z.core.$ZodIssue): { path: ReadonlyArray<PropertyKey>; text: string } {
  switch (issue.code) {
    case "invalid_type":
      return { path: issue.path, text: issue.input === undefined ? "required" : `expected ${issue.expected}` };
    case "unrecognized_keys":
      // One line names the first unknown key; the rest show once it is fixed.
      return { path: [...issue.path, issue.keys[0] ?? "?"], text: "unknown key" };
    case "too_small":
      return { path: issue.path, text: `must be at least ${String(issue.minimum)}` };
    case "too_big":
      return { path: issue.path, text: `must be at most ${String(issue.maximum)}` };
    case "invalid_union": {
      // A discriminated union names the tag values it accepts.
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) {
        return { path: issue.path, text: `expected one of ${options.map((v) => JSON.stringify(v)).join(", ")}` };
      }
      return { path: issue.path, text: "does not match any accepted form" };
    }
    case "invalid_value":
      return { path: issue.path, text: `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` };
    default:
      return { path: issue.path, text: issue.message };
  }
}

/** The first issue of a failed parse as a ConfigError; `prefix` names the file kind ("web config"). */
export function configErrorFrom(error: z.ZodError, prefix = ""): ConfigError {
  const first = error.issues[0];
  if (first === undefined) return new ConfigError(`${prefix}invalid`);
  const { path, text } = describe(first);
  return new ConfigError(`${prefix}${keyPath(path)}: ${text}`);
}
