// Reads a YAML file for the config or the web config: a problem is one line naming the file's role, never its text.

import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { fileErrorText } from "../util/error-text.js";
import { ConfigError } from "./errors.js";

/** The file's text; `label` ("config file") starts the error when it cannot be read. */
export function readText(path: string, label: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${label}: ${fileErrorText(error, path)}`);
  }
}

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

/** Duplicate keys refused; bad YAML is one line (where, and what in our words), never its text or the parser's message. */
export function parseYaml(source: string, label: string): unknown {
  const doc = parseDocument(source, { uniqueKeys: true, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem === undefined) return doc.toJS();
  const before = source.slice(0, problem.pos[0]);
  const line = before.split("\n").length;
  const column = problem.pos[0] - before.lastIndexOf("\n");
  throw new ConfigError(`${label}: not valid YAML at line ${line}, column ${column}: ${yamlProblem(problem.code, problem.message)}`);
}
