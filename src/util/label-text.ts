// Label values as Prometheus can hold them: well-formed UTF-16, secrets redacted, at most 128 code units, cut between code points.

import { redactLabel } from "./redact.js";

/** Label values longer than this are cut, so a hostile venue cannot blow up a scrape. */
export const MAX_LABEL_VALUE_LENGTH = 128;

/** `text` cut to at most `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function cutLabel(text: string, max = MAX_LABEL_VALUE_LENGTH): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * A venue string as a label value: lone surrogates replaced by U+FFFD (they cannot be written as
 * UTF-8, and became one "?" for two distinct strings), any run of a configured secret redacted
 * (before the cut, which could otherwise leave a part of it too short to recognise), then cut on a
 * code-point boundary. Two values that become equal here make one series (dedupe-series.ts).
 */
export function wellFormedLabel(text: string): string {
  return cutLabel(redactLabel(text.isWellFormed() ? text : text.toWellFormed()));
}
