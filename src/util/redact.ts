// Every configured secret, any 12-character run of it, its JSON and base64 forms, and any Authorization value,
// as <secret>. Every venue string is redacted where the readers take it (venue/fields.ts readId); log lines and pages by `redact`.

const REDACTED = "<secret>";
/** Shorter values (a one-letter test key) would blot out ordinary words; they are still never logged on purpose. */
const MIN_LENGTH = 4;
/** Any run of this many characters of a secret is redacted, wherever it stands and however the venue cut it. */
export const WINDOW = 12;
/**
 * The scan reads a GRAM-character run every STRIDE characters, not a window at every one: a window
 * at any offset p holds the gram at the first multiple of STRIDE from p (GRAM + STRIDE - 1 = WINDOW),
 * so only the windows around a gram of a secret are looked up.
 */
const STRIDE = 8;
const GRAM = WINDOW - STRIDE + 1;

/** `Authorization: X`, `"authorization":"X"`, `authorization=X` (any case), and bare `Basic X` / `Bearer X`. */
const AUTHORIZATION = /(authorization\\?"?\s*[:=]\s*\\?"?)(?:(?:basic|bearer|digest|token)\s+)?[^\s"\\,}]+/gi;
// A credential, not a word: at least 8 characters with a digit or one of + / = in them.
const SCHEME = /\b(basic|bearer)\s+(?=[A-Za-z._~-]*[0-9+/=])[A-Za-z0-9+/=._~-]{8,}/gi;

/** Every WINDOW-character run of every form of every secret. */
const windows = new Set<string>();
/** Every GRAM-character run of the same forms. */
const grams = new Set<string>();
/** Forms shorter than WINDOW, matched whole, by their length. */
const shortForms = new Map<number, Set<string>>();
/**
 * Up to this many short forms of one length, a native search for each is cheaper than a lookup at every offset;
 * past it the lookup keeps the cost flat however many accounts carry a short header value.
 */
const SHORT_SEARCHES = 4;

function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [secret, json, JSON.stringify(json).slice(1, -1), Buffer.from(secret, "utf8").toString("base64")];
}

/**
 * Adds values to redact from now on (a config's keys, tokens, passwords, header values, and
 * `user:password` pairs, whose base64 is what goes on the wire). Kept for the life of the process:
 * a line about an old configuration is redacted too.
 */
export function addSecrets(values: Iterable<string>): void {
  for (const value of values) {
    for (const form of forms(value)) {
      if (form.length < MIN_LENGTH) continue;
      if (form.length < WINDOW) shortForms.set(form.length, (shortForms.get(form.length) ?? new Set<string>()).add(form));
      for (let at = 0; at + WINDOW <= form.length; at++) windows.add(form.slice(at, at + WINDOW));
      for (let at = 0; at + GRAM <= form.length; at++) grams.add(form.slice(at, at + GRAM));
    }
  }
}

/** Where secrets stand in `text`, as [start, end) ranges that may overlap; empty when none (the usual case). */
function secretRanges(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  // The last window start looked up, so a window shared by two grams is not read twice.
  let checked = -1;
  for (let q = 0; q + GRAM <= text.length && windows.size > 0; q += STRIDE) {
    if (!grams.has(text.slice(q, q + GRAM))) continue;
    const last = Math.min(q, text.length - WINDOW);
    for (let p = Math.max(q - STRIDE + 1, checked + 1, 0); p <= last; p++) {
      if (windows.has(text.slice(p, p + WINDOW))) found.push([p, p + WINDOW]);
    }
    checked = Math.max(checked, last);
  }
  for (const [length, sameLength] of shortForms) {
    if (sameLength.size <= SHORT_SEARCHES) {
      for (const form of sameLength) for (let p = text.indexOf(form); p >= 0; p = text.indexOf(form, p + 1)) found.push([p, p + length]);
    } else {
      for (let p = 0; p + length <= text.length; p++) if (sameLength.has(text.slice(p, p + length))) found.push([p, p + length]);
    }
  }
  return found;
}

/** `text` with every run of a known secret replaced. */
export function redactKnown(text: string): string {
  if (text.length < MIN_LENGTH || (text.length < WINDOW && shortForms.size === 0)) return text;
  const ranges = secretRanges(text).sort((a, b) => a[0] - b[0]);
  if (ranges.length === 0) return text;
  let out = "";
  let at = 0;
  // Overlapping or touching ranges are one run, one REDACTED.
  for (const [i, [start, end]] of ranges.entries()) {
    if (i === 0 || start > at) out += text.slice(at, start) + REDACTED;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}

/** `text` with every known secret and any Authorization value replaced by <secret>. */
export function redact(text: string): string {
  return redactKnown(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
}
