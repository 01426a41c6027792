// Label values as Prometheus can hold them and a person can read them: well-formed UTF-16, no bidirectional controls, at most 128 code units, cut between code points.

/** Label values longer than this are cut, so a hostile venue cannot blow up a scrape. */
export const MAX_LABEL_VALUE_LENGTH = 128;

/** Unicode's bidirectional controls: embeddings, overrides, isolates and marks, which reorder the text around them. */
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const BIDI_ALL = new RegExp(BIDI.source, "g");

/** Whether `text` holds a bidirectional control. */
export function hasBidiControls(text: string): boolean {
  return BIDI.test(text);
}

/** `text` cut to at most MAX_LABEL_VALUE_LENGTH UTF-16 units, never between the two halves of a surrogate pair. */
export function cutLabel(text: string): string {
  if (text.length <= MAX_LABEL_VALUE_LENGTH) return text;
  const last = text.charCodeAt(MAX_LABEL_VALUE_LENGTH - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_LABEL_VALUE_LENGTH - 1 : MAX_LABEL_VALUE_LENGTH);
}

/**
 * A venue string as a label value: lone surrogates (they cannot be written as UTF-8, and became one
 * "?" for two distinct strings) and bidirectional controls (read in a browser or a terminal, they
 * reverse the rest of the line, sample value included) replaced by U+FFFD, then cut on a code-point
 * boundary. Two values that become equal here make one series (dedupe-series.ts).
 */
export function wellFormedLabel(text: string): string {
  const formed = text.isWellFormed() ? text : text.toWellFormed();
  return cutLabel(BIDI.test(formed) ? formed.replace(BIDI_ALL, "\uFFFD") : formed);
}
