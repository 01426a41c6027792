// Tolerant readers for single venue fields: numbers or decimal strings, labels, flags, timestamps.

import { longDecimal } from "../util/decimal.js";
import { hasBidiControls, wellFormedLabel } from "../util/label-text.js";
import type { Redactor } from "../util/redact.js";
import type { Exact } from "./snapshot.js";

/** Reports a field that was missing or malformed, by its name; `count` of them at once (1 when left out). */
export type FieldReporter = (field: string, count?: number) => void;

// Each digit can be matched one way only (`\d+\.?\d*` could split a run of digits anywhere): linear on any input.
const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_NUMBER_TEXT = 400;

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
  return value === "true" || value === "false" ? value === "true" : undefined;
}

/** The readers of values a reader keeps, each through the process's redactor: the one redaction point, so no secret reaches a label, a page or a log. */
export class VenueFields {
  constructor(readonly redactor: Redactor) {}

  /** A JSON number or decimal string as a finite double; undefined if its text holds a run of a secret, which a sample would write out. */
  readonly number = (value: unknown): number | undefined => {
    // Number() trims the same white space as trim().
    const decimalText = typeof value === "string" && value.length <= MAX_NUMBER_TEXT && DECIMAL_TEXT.test(value.trim());
    const n = typeof value === "number" || decimalText ? Number(value) : Number.NaN;
    return Number.isFinite(n) && !this.redactor.isSecretNumber(n) ? n : undefined;
  };

  /** The decimals of `fields` whose text has more digits than a double keeps; undefined when none (the usual case). */
  exact<K extends string>(raw: Record<string, unknown>, fields: readonly K[]): Exact<K> | undefined {
    let exact: Exact<K> | undefined;
    for (const field of fields) {
      const value = raw[field];
      const d = typeof value === "string" && value.length <= MAX_NUMBER_TEXT ? longDecimal(value) : undefined;
      if (d === undefined || this.redactor.isSecretNumber(Number(value))) continue;
      exact ??= {};
      exact[field] = d;
    }
    return exact;
  }

  /** Every venue string the readers keep passes here. */
  id(value: unknown): string | undefined {
    if (typeof value === "string") return value.length > 0 ? this.redactor.venueText(value) : undefined;
    if (typeof value === "number" && Number.isFinite(value)) return this.redactor.known(String(value));
    return undefined;
  }

  /** A label value, redacted, well-formed and cut; reported as `field` when missing, malformed or holding a bidi control. */
  label(value: unknown, field: string, invalid: FieldReporter): string | undefined {
    const text = this.id(value);
    if (text === undefined || hasBidiControls(text)) invalid(field);
    return text === undefined ? undefined : wellFormedLabel(text);
  }

  /** Seconds since the epoch from s, ms, µs or ns, told apart by magnitude; 0 or negative means unset (undefined). */
  timestampSeconds(value: unknown): number | undefined {
    const n = this.number(value);
    if (n === undefined || n <= 0) return undefined;
    if (n < 1e11) return n;
    if (n < 1e14) return n / 1e3;
    if (n < 1e17) return n / 1e6;
    return n / 1e9;
  }

  /** Absent, null, 0 or negative: how venues write a time or a price they have none to give. */
  isUnset(value: unknown): boolean {
    if (value === undefined || value === null) return true;
    const n = this.number(value);
    return n !== undefined && n <= 0;
  }
}

/** The reporter's name for a field left unset: counted apart from malformed ones (see SelfMetrics). */
export const UNSET_PREFIX = "unset:";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
