// Tolerant readers for single venue fields: numbers or decimal strings, labels, flags, timestamps.

import { longDecimal } from "../util/decimal.js";
import { hasBidiControls, wellFormedLabel } from "../util/label-text.js";
import { isSecretNumber, redactKnown, redactVenueText } from "../util/redact.js";
import type { Exact } from "./snapshot.js";

/** Reports a field that was missing or malformed, by its name; `count` of them at once (1 when left out). */
export type FieldReporter = (field: string, count?: number) => void;

const DECIMAL_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_NUMBER_TEXT = 400;

/**
 * A JSON number or a decimal string as a finite double; anything else is undefined, and so is a number
 * whose text holds a run of a secret (a digits-only key echoed as a value): a sample would write it out.
 */
export function readNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && !isSecretNumber(value) ? value : undefined;
  if (typeof value !== "string" || value.length > MAX_NUMBER_TEXT) return undefined;
  const text = value.trim();
  if (!DECIMAL_TEXT.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && !isSecretNumber(n) ? n : undefined;
}

/**
 * The decimals `fields` of `raw` were written as, where their text (a decimal string, or a JSON
 * number's source kept by the parse, util/json-walk.ts) has more significant digits than a double
 * keeps; undefined when there were none (the usual case). One that holds a secret is left out, as by readNumber.
 */
export function exactFields<K extends string>(raw: Record<string, unknown>, fields: readonly K[]): Exact<K> | undefined {
  let exact: Exact<K> | undefined;
  for (const field of fields) {
    const value = raw[field];
    const d = typeof value === "string" && value.length <= MAX_NUMBER_TEXT ? longDecimal(value) : undefined;
    if (d === undefined || isSecretNumber(Number(value))) continue;
    exact ??= {};
    exact[field] = d;
  }
  return exact;
}

/**
 * A non-empty identifier, for telling records apart; numbers are accepted as their decimal text.
 * The one redaction point: every string the readers keep from the venue is read here, so any run of
 * a configured secret (util/redact.ts), as read or as an output would escape it, is replaced before it
 * can reach a label, a page or a log; a number's decimal text too.
 */
export function readId(value: unknown): string | undefined {
  if (typeof value === "string") return value.length > 0 ? redactVenueText(value) : undefined;
  if (typeof value === "number" && Number.isFinite(value)) return redactKnown(String(value));
  return undefined;
}

/**
 * An identifier or enum value that becomes a label value: redacted (readId), then well-formed and
 * cut (label-text.ts). Missing or malformed, it is reported as `field`; so is one that held a
 * bidirectional control, which is replaced (it would reverse how the line around it reads).
 */
export function readLabel(value: unknown, field: string, invalid: FieldReporter): string | undefined {
  const text = readId(value);
  if (text === undefined || hasBidiControls(text)) invalid(field);
  return text === undefined ? undefined : wellFormedLabel(text);
}

/** `raw[field]` as `read` reads it; a missing or malformed one is reported as `field`. */
export function readField<V>(raw: Record<string, unknown>, field: string, read: (value: unknown) => V | undefined, invalid: FieldReporter): V | undefined {
  const value = read(raw[field]);
  if (value === undefined) invalid(field);
  return value;
}

/** Each of `fields` of `raw` as `read` reads it; a missing or malformed one is reported as `prefix` + its name. */
export function readFields<K extends string, V>(
  raw: Record<string, unknown>,
  fields: readonly K[],
  read: (value: unknown) => V | undefined,
  invalid: FieldReporter,
  prefix = "",
): Record<K, V | undefined> {
  const values = {} as Record<K, V | undefined>;
  for (const field of fields) {
    values[field] = read(raw[field]);
    if (values[field] === undefined) invalid(`${prefix}${field}`);
  }
  return values;
}

/** A boolean, also when sent as the strings "true"/"false". */
export function readFlag(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

/**
 * A timestamp of unknown unit, recognised by magnitude and returned in seconds since the epoch:
 * below 1e11 seconds (until year 5138), below 1e14 milliseconds, below 1e17 microseconds, else
 * nanoseconds. Zero and negative values mean "not set" and are undefined.
 */
export function readTimestampSeconds(value: unknown): number | undefined {
  const n = readNumber(value);
  if (n === undefined || n <= 0) return undefined;
  if (n < 1e11) return n;
  if (n < 1e14) return n / 1e3;
  if (n < 1e17) return n / 1e6;
  return n / 1e9;
}

/** A time the venue left unset: absent, null, or 0 or negative (the usual "not set"), as opposed to malformed. */
export function isUnsetTime(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  const n = readNumber(value);
  return n !== undefined && n <= 0;
}

/** The reporter's name for a field left unset: counted apart from malformed ones (see SelfMetrics). */
export const UNSET_PREFIX = "unset:";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
