// The logger: pino's API, lines in Prometheus 3's shape (slog's time, level, msg, fields) as JSON or logfmt, secrets redacted.

import type { Writable } from "node:stream";
import { format } from "node:util";
import { type LogFn, type Logger, pino } from "pino";
import { REDACTED } from "./config/secret.js";
import type { LogFormat } from "./config/values.js";
import { LogSink } from "./util/log-sink.js";
import { Redactor } from "./util/redact.js";

export { LogSink };

/** Credential fields replaced by <secret> wherever they stand: among a call's fields, or in an object one of them holds. */
const SECRET_FIELDS = new Set(["apiKey", "password", "token"]);

/** The keys every line begins with; a field of the same name is left out, so it cannot pose as the line's own. */
const OWN_KEYS = new Set(["time", "level", "msg"]);

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);

const LEVEL_WORDS: ReadonlyArray<[number, string]> = [
  [50, "ERROR"],
  [40, "WARN"],
  [30, "INFO"],
];

/** pino's level numbers as slog's words; pino's trace and fatal, which the exporter does not use, as their neighbours. */
const levelWord = (level: number): string => LEVEL_WORDS.find(([from]) => level >= from)?.[1] ?? "DEBUG";

/** `fields` with the credential fields and the secret headers of a `headers` object replaced, here and one object down. */
function censor(fields: Fields, secret: ReadonlySet<string>, nested = false, isSecret = (key: string) => SECRET_FIELDS.has(key)): Fields {
  let out: Fields | undefined;
  for (const [key, value] of Object.entries(fields)) {
    let next = value;
    if (isSecret(key)) next = REDACTED;
    else if (isObject(value) && key === "headers") next = censor(value, secret, true, (name) => secret.has(name.toLowerCase()));
    else if (isObject(value) && !nested) next = censor(value, secret, true);
    if (next === value) continue;
    out ??= { ...fields };
    out[key] = next;
  }
  return out ?? fields;
}

/** A scalar as text: a Date as RFC 3339, an Error by its name only (its message may be a library's). */
function scalarText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return value.name;
  return String(value);
}

/** A logfmt value, quoted as Go's slog quotes one: when empty, or holding a space, `=`, `"` or an unprintable character. */
function logfmtValue(text: string): string {
  return /^[^\s="\p{C}]+$/u.test(text) ? text : JSON.stringify(text);
}

/** `key=value` pairs for one field: a list of scalars comma-joined, an object's fields (and a list of objects) under `key.`. */
function logfmtPairs(key: string, value: unknown, out: string[]): void {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return;
  const scalars = Array.isArray(value) && value.every((item) => !isObject(item) && !Array.isArray(item));
  if (scalars) out.push(`${key}=${logfmtValue(value.map(scalarText).join(","))}`);
  else if (typeof value === "object" && value !== null && !(value instanceof Date) && !(value instanceof Error)) {
    for (const [k, v] of Object.entries(value)) logfmtPairs(`${key}.${k}`, v, out);
  } else out.push(`${key}=${logfmtValue(scalarText(value))}`);
}

function logfmtLine(time: string, level: string, msg: string, fields: Fields): string {
  const out = [`time=${time}`, `level=${level}`, `msg=${logfmtValue(msg)}`];
  for (const [key, value] of Object.entries(fields)) if (!OWN_KEYS.has(key)) logfmtPairs(key, value, out);
  return `${out.join(" ")}\n`;
}

const jsonValue = (_key: string, value: unknown): unknown => (typeof value === "bigint" ? String(value) : value instanceof Error ? value.name : value);

function jsonLine(time: string, level: string, msg: string, fields: Fields): string {
  const record: Fields = { time, level, msg };
  for (const [key, value] of Object.entries(fields)) if (!OWN_KEYS.has(key)) record[key] = value;
  try {
    return `${JSON.stringify(record, jsonValue)}\n`;
  } catch {
    // A cycle: the line still says what happened.
    return `${JSON.stringify({ time, level, msg, fields: "(not shown: not serializable)" })}\n`;
  }
}

/** stderr as a LogSink: every line passes the redactor on its way out. */
export function stderrSink(redactor: Redactor): LogSink {
  return new LogSink(2, (line) => redactor.redact(line));
}

/** Every line passes `redactor` (a LogSink's own, else here); pino picks the calls by level, the hook writes each line (child bindings are not written). */
export function createLogger(
  level: string,
  destination?: LogSink | Writable,
  secretHeaders: readonly string[] = [],
  form: LogFormat = "json",
  redactor = new Redactor(),
): Logger {
  const secret = new Set(["authorization", ...secretHeaders.map((h) => h.toLowerCase())]);
  const out = destination ?? stderrSink(redactor);
  const write = out instanceof LogSink ? (line: string) => out.write(line) : (line: string) => out.write(redactor.redact(line));
  const lineOf = form === "logfmt" ? logfmtLine : jsonLine;
  function logMethod(args: Parameters<LogFn>, _method: LogFn, levelNumber: number): void {
    const [first, ...rest] = args as unknown[];
    const fields = isObject(first) ? first : {};
    const [msg = "", ...params] = isObject(first) ? rest : (args as unknown[]);
    const text = params.length === 0 ? String(msg) : format(msg, ...params);
    write(lineOf(new Date().toISOString(), levelWord(levelNumber), text, censor(fields, secret)));
  }
  return pino({ level, base: null, hooks: { logMethod } }, out);
}
