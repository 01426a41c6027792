// The logger: pino on stderr, JSON lines or logfmt for people, every secret redacted, never blocked by its reader.

import type { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { REDACTED } from "./config/secret.js";
import { LogSink } from "./util/log-sink.js";
import { redact } from "./util/redact.js";

export { LogSink };

/** Credential fields pino replaces with <secret> wherever they appear in a log object. */
const SECRET_FIELDS = ["apiKey", "password", "token", "*.apiKey", "*.password", "*.token"];

/**
 * The paths pino redacts: the credential fields, and every header the venue's authenticators name as
 * carrying a secret (`Authenticator.secretHeaders`, from venue/auth.ts); Authorization always, since
 * the exporter's own basic auth arrives in it.
 */
function redactPaths(secretHeaders: readonly string[] = []): string[] {
  const headers = [...new Set(["authorization", ...secretHeaders.map((h) => h.toLowerCase())])].map((h) => JSON.stringify(h));
  return [...SECRET_FIELDS, ...headers.flatMap((h) => [`headers[${h}]`, `*.headers[${h}]`, `req.headers[${h}]`])];
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** One of pino's JSON lines as `ts=… level=… msg="…" key=value` (and a newline); other text as it is. */
function logfmtLine(text: string): string {
  let out = "";
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const { time, level, msg, pid: _pid, hostname: _host, ...rest } = JSON.parse(line) as Record<string, unknown>;
      const fields = Object.entries(rest).map(([k, v]) => `${k}=${logfmtValue(v)}`);
      const ts = typeof time === "number" ? new Date(time).toISOString() : "";
      const text = `ts=${ts} level=${LEVELS[level as number] ?? String(level)} msg=${logfmtValue(msg ?? "")} ${fields.join(" ")}`;
      out += `${text.trimEnd()}\n`;
    } catch {
      out += `${line}\n`;
    }
  }
  return out;
}

/** stderr as a LogSink, in JSON lines or logfmt. */
export function stderrSink(format: "json" | "logfmt" = "json"): LogSink {
  return new LogSink(2, format === "logfmt" ? (line) => logfmtLine(redact(line)) : redact);
}

/**
 * A logger on `destination` (stderr by default). Every line passes the redactor: the known secrets
 * (util/redact.ts) and any Authorization value become <secret>, whatever field or message holds them.
 */
export function createLogger(level: string, destination?: LogSink | Writable, secretHeaders: readonly string[] = []): Logger {
  const options = { level, base: { name: "trading-exporter" }, redact: { paths: redactPaths(secretHeaders), censor: REDACTED } };
  if (destination === undefined || destination instanceof LogSink) return pino(options, destination ?? stderrSink());
  return pino(options, { write: (line: string) => destination.write(redact(line)) });
}
