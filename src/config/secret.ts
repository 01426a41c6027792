// A credential that prints as <secret> however it is logged, stringified or inspected; the bounded read of a file a setting names.

import { closeSync, openSync, readSync } from "node:fs";
import { inspect } from "node:util";
import { fileErrorText } from "../util/error-text.js";
import { ConfigError } from "./errors.js";

export const REDACTED = "<secret>";

/** Why `value` cannot be an HTTP header value (RFC 9110), by kind only: the message never shows the value. */
export function headerValueProblem(value: string): string | undefined {
  if (/[\n\r]/.test(value)) return "contains a line break";
  if (value.includes("\0")) return "contains a NUL byte";
  // Tab and the C1 controls (0x80-0x9f, obs-text to RFC 9110) are allowed; every other control is not.
  if (/[^\P{Cc}\t\x80-\x9f]/u.test(value)) return "contains a control character";
  return /[\u0100-\uffff]/.test(value) ? "contains a character that is not Latin-1" : undefined;
}

/** `value` when it is a valid HTTP header value, else a problem naming `key`. */
export function checkHeaderValue(value: string, key: string): string {
  const problem = headerValueProblem(value);
  if (problem !== undefined) throw new ConfigError(`${key}: ${problem}, so it is not a valid HTTP header value (value not shown)`);
  return value;
}

export class Secret {
  readonly #value: string;

  /** `key` names where the value came from (key path or variable), for the error when it is not a valid header value. */
  constructor(value: string, key: string) {
    this.#value = checkHeaderValue(value, key);
  }

  /** The credential itself: call only where it is put on the wire. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** A secret given as text (`key` names where): trimmed, and not empty. */
export function secretFromText(text: string, key: string, empty = "is empty"): Secret {
  if (text.trim() === "") throw new ConfigError(`${key}: ${empty}`);
  return new Secret(text.trim(), key);
}

/** A secret read from a file (`key` names the setting that names the file): trimmed, and not empty. */
export function secretFromFile(path: string, key: string): Secret {
  return secretFromText(readText(path, key), key, "the file is empty");
}

/** The largest file read (config, web config or secret): a config of a thousand accounts takes about 150 KiB. */
const MAX_FILE_BYTES = 1024 * 1024;

/** The file's text; a larger file than MAX_FILE_BYTES (or /dev/zero) is refused unread past it. `label` starts a problem's line. */
export function readText(path: string, label: string): string {
  const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
  let length = 0;
  try {
    const fd = openSync(path, "r");
    try {
      for (let n = 1; n > 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new ConfigError(`${label}: ${fileErrorText(error, path)}`);
  }
  if (length > MAX_FILE_BYTES) throw new ConfigError(`${label}: ${JSON.stringify(path)} is larger than 1 MiB, the most read; refused`);
  return buffer.toString("utf8", 0, length);
}
