// The logger: pino, JSON lines on stderr, with every place a credential could sit redacted.

import { pino, type Logger } from "pino";

/** Paths pino replaces with <secret> wherever they appear in a log object. */
export const REDACT_PATHS = [
  "headers.authorization",
  'headers["x-api-key"]',
  "req.headers.authorization",
  "*.headers.authorization",
  "apiKey",
  "password",
  "token",
  "key",
  "*.apiKey",
  "*.password",
  "*.token",
  "*.key",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, base: { name: "trading-exporter" }, redact: { paths: REDACT_PATHS, censor: "<secret>" } };
  return destination === undefined ? pino(options, pino.destination(2)) : pino(options, destination);
}

export type { Logger };
