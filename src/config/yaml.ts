// Reads a YAML file for the config or the web config: a problem is one line naming the file's role, never its text.

import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { libraryErrorText } from "../util/error-text.js";
import { ConfigError } from "./errors.js";

/** The file's text; `label` ("config file") starts the error when it cannot be read. */
export function readText(path: string, label: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(libraryErrorText(error, `${label}: cannot read ${JSON.stringify(path)}`));
  }
}

/**
 * The data of YAML text, duplicate keys refused. Bad YAML is one line with its line number (and the
 * parser's code when `withCode`), never the line's text: it could hold a secret.
 */
export function parseYaml(source: string, label: string, withCode: boolean): unknown {
  const doc = parseDocument(source, { uniqueKeys: true, prettyErrors: false });
  const problem = doc.errors[0];
  if (problem === undefined) return doc.toJS();
  const line = source.slice(0, problem.pos[0]).split("\n").length;
  throw new ConfigError(`${label}: not valid YAML (line ${line})${withCode ? `: ${problem.code}` : ""}`);
}
