// The logger: pino on stderr, JSON lines or logfmt for people, with credential fields redacted.

import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { REDACTED } from "./config/secret.js";

/** Credential fields pino replaces with <secret> wherever they appear in a log object. */
const SECRET_FIELDS = ["apiKey", "password", "token", "*.apiKey", "*.password", "*.token"];

/**
 * The paths pino redacts: the credential fields, and every header the venue's authenticators name as
 * carrying a secret (`Authenticator.secretHeaders`, from venue/auth.ts); Authorization always, since
 * the exporter's own basic auth arrives in it.
 */
export function redactPaths(secretHeaders: readonly string[] = []): string[] {
  const headers = [...new Set(["authorization", ...secretHeaders.map((h) => h.toLowerCase())])].map((h) => JSON.stringify(h));
  return [...SECRET_FIELDS, ...headers.flatMap((h) => [`headers[${h}]`, `*.headers[${h}]`, `req.headers[${h}]`])];
}

const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

function logfmtValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** A stream that rewrites pino's JSON lines as `ts=… level=… msg="…" key=value`. */
export function logfmtStream(out: NodeJS.WritableStream = process.stderr): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line === "") continue;
        try {
          const { time, level, msg, pid: _pid, hostname: _host, ...rest } = JSON.parse(line) as Record<string, unknown>;
          const fields = Object.entries(rest).map(([k, v]) => `${k}=${logfmtValue(v)}`);
          const ts = typeof time === "number" ? new Date(time).toISOString() : "";
          const text = `ts=${ts} level=${LEVELS[level as number] ?? String(level)} msg=${logfmtValue(msg ?? "")} ${fields.join(" ")}`;
          out.write(`${text.trimEnd()}\n`);
        } catch {
          out.write(`${line}\n`);
        }
      }
      done();
    },
  });
}

/** `secretHeaders`: the header names the configured authenticators put credentials in (see `secretHeaderNames`). */
export function createLogger(level: string, destination?: pino.DestinationStream | Writable, secretHeaders: readonly string[] = []): Logger {
  const options = { level, base: { name: "trading-exporter" }, redact: { paths: redactPaths(secretHeaders), censor: REDACTED } };
  return pino(options, destination ?? pino.destination(2));
}

export type { Logger };
