// Label values as Prometheus can hold them: well-formed UTF-16, at most 128 code units, cut between code points.

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
 * UTF-8, and became one "?" for two distinct strings), then cut on a code-point boundary.
 */
export function wellFormedLabel(text: string): string {
  return cutLabel(text.isWellFormed() ? text : text.toWellFormed());
}
