// Reads repository files for the packaging tests: YAML (strict: duplicate keys fail), the Dockerfile, .dockerignore rules.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, parseDocument } from "yaml";

/** Absolute path of a file or folder of the repository, from a path relative to its root. */
export function repoPath(relative = ""): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

export function readRepoFile(relative: string): string {
  return readFileSync(repoPath(relative), "utf8");
}

function failOn(errors: ReadonlyArray<{ message: string }>, where: string): void {
  if (errors.length > 0) throw new Error(`${where}: ${errors.map((e) => e.message).join("; ")}`);
}

/** One YAML document as plain data. Aliases are resolved; a duplicate key or a syntax error throws. */
export function readYaml(relative: string): unknown {
  const doc = parseDocument(readRepoFile(relative), { uniqueKeys: true });
  failOn(doc.errors, relative);
  return doc.toJS() as unknown;
}

/** Every document of a (possibly multi-document) YAML file, as plain data, empty documents left out. */
export function readYamlDocuments(relative: string): unknown[] {
  return parseAllDocuments(readRepoFile(relative), { uniqueKeys: true }).flatMap((doc) => {
    failOn(doc.errors, relative);
    const value = doc.toJS() as unknown;
    return value === null || value === undefined ? [] : [value];
  });
}

/** A plain object's property by path, or undefined; for poking into parsed YAML without casts everywhere. */
export function dig(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export interface DockerInstruction {
  /** Upper-case keyword: FROM, RUN, COPY, ... */
  keyword: string;
  /** The rest of the (joined) line. */
  args: string;
  /** Index of the build stage it belongs to, 0 for the first FROM (and -1 before it: ARG). */
  stage: number;
}

/** The Dockerfile's instructions, with continuation lines joined and comments dropped. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending = "";
  let stage = -1;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || (line === "" && pending === "")) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = "";
    if (full === "") continue;
    const match = /^(\S+)\s*(.*)$/.exec(full);
    if (!match) continue;
    const keyword = match[1]!.toUpperCase();
    if (keyword === "FROM") stage += 1;
    instructions.push({ keyword, args: match[2]!, stage });
  }
  return instructions;
}

/** A .dockerignore pattern as a regular expression over slash-separated context paths. */
function patternRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      const slash = pattern[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Whether Docker leaves a context path out of the build, by .dockerignore's rules: patterns in
 * order, the last one matching the path or one of its parent folders wins, `!` re-includes.
 */
export function dockerIgnores(dockerignore: string, path: string): boolean {
  const rules = dockerignore
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const exclude = !line.startsWith("!");
      const pattern = (exclude ? line : line.slice(1)).trim().replace(/^\/+/, "").replace(/\/+$/, "");
      return { exclude, regexp: patternRegExp(pattern) };
    });
  const parts = path.split("/");
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
  let ignored = false;
  for (const rule of rules) {
    if (prefixes.some((prefix) => rule.regexp.test(prefix))) ignored = rule.exclude;
  }
  return ignored;
}
