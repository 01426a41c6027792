// docs/logging.md lists every message the exporter logs, with its level and fields, as the source writes them;
// its sample lines are what the logger writes for those fields.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { outputBlocks, REPO_ROOT, readDoc } from "./helpers/markdown-docs.js";
import { createLogger } from "../src/log.js";

const DOC = "docs/logging.md";
const LEVELS: Record<string, string> = { debug: "DEBUG", info: "INFO", warn: "WARN", error: "ERROR" };

interface Message {
  level: string;
  msg: string;
  fields: string[];
  where: string;
}

/** The text from `open` (a bracket) to its matching close, brackets and strings nested. */
function balanced(text: string, open: number): string {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c in pairs) stack.push(pairs[c]!);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return text.slice(open, i + 1);
    }
  }
  throw new Error(`unbalanced from ${text.slice(open, open + 40)}`);
}

/** An object literal's top-level entries (`a`, `b: x`, `...c`). */
function entries(literal: string): string[] {
  const inner = literal.slice(1, -1);
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < inner.length && inner[i] !== c; i++) if (inner[i] === "\\") i++;
    } else if ("({[".includes(c)) depth++;
    else if (")}]".includes(c)) depth--;
    else if (c === "," && depth === 0) {
      out.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  out.push(inner.slice(start));
  return out.map((e) => e.trim()).filter(Boolean);
}

/** The field names an object literal writes, spreads of a `const NAME = {…}` or of a `function NAME(…): {…}` of the same file resolved. */
function fieldNames(literal: string, source: string, where: string): string[] {
  return entries(literal).flatMap((entry) => {
    const spread = /^\.\.\.([A-Za-z_$][\w$]*)(\(.*\))?$/s.exec(entry);
    if (spread === null) {
      const key = /^([A-Za-z_$][\w$]*)\s*(?::|$)/.exec(entry)?.[1];
      if (key === undefined) throw new Error(`${where}: cannot read the field ${entry}`);
      return [key];
    }
    const [, name, call] = spread;
    const found = call === undefined ? new RegExp(`const ${name} = \\{`).exec(source) : new RegExp(`function ${name}\\([^)]*\\)\\s*:\\s*\\{`).exec(source);
    if (found === null) throw new Error(`${where}: cannot resolve the spread ${entry}`);
    const body = balanced(source, found.index + found[0].length - 1);
    // A return type lists `name?: type;`, a literal `name: value,`.
    return call === undefined ? fieldNames(body, source, where) : [...body.matchAll(/([A-Za-z_$][\w$]*)\??:/g)].map((m) => m[1]!);
  });
}

/** Every log call of src/ (but the logger itself): its level, its message (a string literal) and its fields. */
function sourceMessages(): Message[] {
  const found = new Map<string, Message>();
  const dir = join(REPO_ROOT, "src");
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && f !== "log.ts")) {
    const source = readFileSync(join(dir, file), "utf8");
    for (const call of source.matchAll(/\b(?:logger|#logger)\.(debug|info|warn|error)\(/g)) {
      const where = `src/${file}:${source.slice(0, call.index).split("\n").length}`;
      const args = balanced(source, call.index + call[0].length - 1)
        .slice(1, -1)
        .trim();
      const literal = args.startsWith("{") ? balanced(args, 0) : "";
      const message = /^,?\s*("(?:[^"\\]|\\.)*")\s*,?\s*$/.exec(args.slice(literal.length));
      if (message === null) throw new Error(`${where}: a log message must be one string literal, so docs/logging.md can list it`);
      const msg = JSON.parse(message[1]!) as string;
      const level = LEVELS[call[1]!]!;
      const key = `${level} ${msg}`;
      const fields = literal === "" ? [] : fieldNames(literal, source, where);
      const before = found.get(key);
      found.set(key, { level, msg, where, fields: [...new Set([...(before?.fields ?? []), ...fields])].sort() });
    }
  }
  return [...found.values()];
}

/** The rows of the doc's message table: level, `msg`, fields as code spans. */
function docMessages(doc: string): Message[] {
  return doc
    .split("\n")
    .filter((l) => /^\| (DEBUG|INFO|WARN|ERROR) \|/.test(l))
    .map((l, i) => {
      const [level = "", msg = "", fields = ""] = l
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim());
      return {
        level,
        msg: /^`(.*)`$/.exec(msg)?.[1] ?? msg,
        fields: [...fields.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort(),
        where: `${DOC} row ${i + 1}`,
      };
    });
}

describe(`${DOC}`, () => {
  const doc = readDoc(DOC);

  it("lists every message of the source with its level and fields, and no other", () => {
    const source = sourceMessages();
    expect(source.length).toBeGreaterThan(15);
    const shown = (m: Message) => `${m.level} ${m.msg} [${m.fields.join(", ")}]`;
    expect(docMessages(doc).map(shown).sort()).toEqual(source.map(shown).sort());
  });

  it("shows sample lines that the logger writes, in JSON and in logfmt", () => {
    const blocks = outputBlocks(DOC, doc);
    const json = blocks.find((b) => b.source.startsWith("--log.format=json"));
    const logfmt = blocks.find((b) => b.source.startsWith("--log.format=logfmt"));
    expect(json && logfmt, "both samples, marked <!-- output: --log.format=... -->").toBeTruthy();
    const messages = docMessages(doc);
    for (const [format, block] of [
      ["json", json!],
      ["logfmt", logfmt!],
    ] as const) {
      expect(block.lines.length).toBeGreaterThan(0);
      for (const line of block.lines) {
        // The line the logger writes for the sample's own level, message and fields (its time aside).
        const record = format === "json" ? (JSON.parse(line) as Record<string, unknown>) : undefined;
        const sample =
          record ??
          Object.fromEntries([...line.matchAll(/(\S+?)=("(?:[^"\\]|\\.)*"|\S*)/g)].map((m) => [m[1]!, m[2]!.startsWith('"') ? JSON.parse(m[2]!) : m[2]!]));
        const { time, level, msg, ...fields } = sample as Record<string, string>;
        expect(
          messages.some((m) => m.level === level && m.msg === msg),
          `${line}: a message of the table`,
        ).toBe(true);
        const lines: string[] = [];
        const logger = createLogger("debug", new Writable({ write: (c: Buffer, _e, done) => done(void lines.push(c.toString())) }), [], format);
        // A logfmt sample's list is comma-joined text: the logger writes a list of strings the same way.
        const values = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, record === undefined && v.includes(",") ? v.split(",") : v]));
        logger[level!.toLowerCase() as "info"](values, msg!);
        expect(lines[0]!.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, time!).trimEnd()).toBe(line);
      }
    }
  });
});
