// Label values as Prometheus can hold them and a person can read them: well-formed UTF-16, no bidirectional controls, at most 128 code units, cut between code points.

export const MAX_LABEL_VALUE_LENGTH = 128;

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const BIDI_ALL = new RegExp(BIDI.source, "g");

export function hasBidiControls(text: string): boolean {
  return BIDI.test(text);
}

export function cutLabel(text: string): string {
  if (text.length <= MAX_LABEL_VALUE_LENGTH) return text;
  const last = text.charCodeAt(MAX_LABEL_VALUE_LENGTH - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_LABEL_VALUE_LENGTH - 1 : MAX_LABEL_VALUE_LENGTH);
}

/** Lone surrogates (not writable as UTF-8) and bidi controls (they reverse the rest of the line) become U+FFFD, then cut. */
export function wellFormedLabel(text: string): string {
  const formed = text.isWellFormed() ? text : text.toWellFormed();
  return cutLabel(BIDI.test(formed) ? formed.replace(BIDI_ALL, "\uFFFD") : formed);
}
