// A credential that prints as <secret> however it is logged, stringified or inspected.

import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { fileErrorText } from "../util/error-text.js";
import { ConfigError } from "./errors.js";

export const REDACTED = "<secret>";

/** Why `value` cannot be an HTTP header value (RFC 9110), by kind only: the message never shows the value. */
export function headerValueProblem(value: string): string | undefined {
  let problem: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 10 || c === 13) return "contains a line break";
    if (c === 0) problem ??= "contains a NUL byte";
    else if ((c < 32 && c !== 9) || c === 127) problem ??= "contains a control character";
    else if (c > 255) problem ??= "contains a character that is not Latin-1";
  }
  return problem;
}

export function checkHeaderValue(value: string, key: string): void {
  const problem = headerValueProblem(value);
  if (problem !== undefined) throw new ConfigError(`${key}: ${problem}, so it is not a valid HTTP header value (value not shown)`);
}

export class Secret {
  readonly #value: string;

  /** `key` names where the value came from (key path or variable), for the error when it is not a valid header value. */
  constructor(value: string, key: string) {
    checkHeaderValue(value, key);
    this.#value = value;
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
export function secretFromText(text: string, key: string): Secret {
  if (text.trim() === "") throw new ConfigError(`${key}: is empty`);
  return new Secret(text.trim(), key);
}

/** A secret read from a file (`key` names the setting that names the file): trimmed, and not empty. */
export function secretFromFile(path: string, key: string): Secret {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${key}: ${fileErrorText(error, path)}`);
  }
  if (text.trim() === "") throw new ConfigError(`${key}: the file is empty`);
  return new Secret(text.trim(), key);
}
