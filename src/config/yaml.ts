// Reads a YAML file for the config or the web config: a problem is one line naming the file's role, never its text.

import { once } from "node:events";
import { closeSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import * as yaml from "yaml";
import { fileErrorText } from "../util/error-text.js";
import { ConfigError } from "./errors.js";

/** The largest config or web config file read: a thousand accounts take about 150 KiB. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** At most MAX_FILE_BYTES + 1 bytes: a larger file (or /dev/zero) is refused without being read whole. */
function readBounded(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** The file's text; `label` ("config file") starts the error when it cannot be read. */
export function readText(path: string, label: string): string {
  let bytes: Buffer;
  try {
    bytes = readBounded(path);
  } catch (error) {
    throw new ConfigError(`${label}: ${fileErrorText(error, path)}`);
  }
  if (bytes.length > MAX_FILE_BYTES) throw new ConfigError(`${label}: ${JSON.stringify(path)} is larger than 1 MiB, the most read; refused`);
  return bytes.toString("utf8");
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

type YamlModule = typeof import("yaml");

/** What reading a YAML text came to, plain data that crosses to and from a worker thread; `message` is the parser's, never shown. */
type Read = { data: unknown } | { problem: { code: string; message: string; pos: number } } | { aliases: true };

/**
 * Parses `source` with the yaml module `y`, refusing a key given twice in one map (a set per map: the parser's own
 * check is quadratic in the keys) and aliases that expand past 100 uses (yaml's guard, a ReferenceError). It refers
 * to nothing outside itself: a worker thread runs it from its text.
 */
function readYaml(y: YamlModule, source: string): Read {
  const doc = y.parseDocument(source, { uniqueKeys: false, prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) return { problem: { code: error.code, message: error.message, pos: error.pos[0] } };
  let duplicate: number | undefined;
  y.visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!y.isScalar(key)) continue;
        if (seen.has(key.value)) {
          duplicate = key.range?.[0] ?? 0;
          return y.visit.BREAK;
        }
        seen.add(key.value);
      }
      return undefined;
    },
  });
  if (duplicate !== undefined) return { problem: { code: "DUPLICATE_KEY", message: "", pos: duplicate } };
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }) };
  } catch (thrown) {
    if (thrown instanceof ReferenceError) return { aliases: true };
    throw thrown;
  }
}

function problemAt(source: string, label: string, pos: number, problem: string): ConfigError {
  const before = source.slice(0, pos);
  const line = before.split("\n").length;
  const column = pos - before.lastIndexOf("\n");
  return new ConfigError(`${label}: not valid YAML at line ${line}, column ${column}: ${problem}`);
}

function dataOf(read: Read, source: string, label: string): unknown {
  if ("data" in read) return read.data;
  if ("aliases" in read) throw new ConfigError(`${label}: its YAML aliases (*name) expand to too much; refused`);
  const { code, message, pos } = read.problem;
  throw problemAt(source, label, pos, yamlProblem(code, message));
}

/** Duplicate keys and alias bombs refused; bad YAML is one line (where, and what in our words), never its text or the parser's message. */
export function parseYaml(source: string, label: string): unknown {
  return dataOf(readYaml(yaml, source), source, label);
}

/** The worker's whole program: `readYaml` from its own text, so src/ under vitest and dist/ run the same. */
const PROGRAM = `
import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const y = await import(workerData.yaml);
  parentPort.postMessage((${readYaml.toString()})(y, workerData.source));
});`;

/**
 * As `parseYaml`, on a worker thread of its own: a 1 MiB file takes the parser about 2 s, which a reload must not hold
 * the event loop for (scrapes and /-/healthy go on meanwhile).
 */
export async function parseYamlAside(source: string, label: string): Promise<unknown> {
  const yamlUrl = pathToFileURL(createRequire(import.meta.url).resolve("yaml")).href;
  const worker = new Worker(PROGRAM, { eval: true, workerData: { yaml: yamlUrl, source } });
  try {
    const [read] = (await once(worker, "message")) as [Read];
    return dataOf(read, source, label);
  } finally {
    void worker.terminate();
  }
}
