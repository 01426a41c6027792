// Every configured secret, any 12-character run of it, its JSON and base64 forms, and any Authorization value,
// as <secret>. Every venue string is redacted where the readers take it (venue/fields.ts readId), escaped forms included;
// log lines and pages by `redact`.

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
/** A run a number's shortest decimal text (String(n)) can hold: a sign, digits with one point, an exponent (e, a sign, digits). */
const NUMBER_RUN = /^-?\d*\.?\d*(?:e(?:[+-]\d*)?)?$/;
/** Whether some window is such a run (a digits-only key); until one is, no number is looked up. */
let numberRuns = false;
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
      for (let at = 0; at + WINDOW <= form.length; at++) {
        const run = form.slice(at, at + WINDOW);
        windows.add(run);
        numberRuns ||= NUMBER_RUN.test(run);
      }
      for (let at = 0; at + GRAM <= form.length; at++) grams.add(form.slice(at, at + GRAM));
    }
  }
}

/** `found` with where WINDOW-character runs of secrets stand in `text` added, as [start, end) ranges. */
function windowRanges(text: string, found: Array<[number, number]>): Array<[number, number]> {
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
  return found;
}

/** Where secrets stand in `text`, as [start, end) ranges that may overlap; empty when none (the usual case). */
function secretRanges(text: string): Array<[number, number]> {
  const found = windowRanges(text, []);
  for (const [length, sameLength] of shortForms) {
    if (sameLength.size <= SHORT_SEARCHES) {
      for (const form of sameLength) for (let p = text.indexOf(form); p >= 0; p = text.indexOf(form, p + 1)) found.push([p, p + length]);
    } else {
      for (let p = 0; p + length <= text.length; p++) if (sameLength.has(text.slice(p, p + length))) found.push([p, p + length]);
    }
  }
  return found;
}

/** `text` with the given ranges replaced, overlapping or touching ones by one REDACTED. */
function replaceRanges(text: string, found: Array<[number, number]>): string {
  if (found.length === 0) return text;
  const ranges = found.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [i, [start, end]] of ranges.entries()) {
    if (i === 0 || start > at) out += text.slice(at, start) + REDACTED;
    at = Math.max(at, end);
  }
  return out + text.slice(at);
}

/** `text` with every run of a known secret replaced. */
export function redactKnown(text: string): string {
  if (text.length < MIN_LENGTH || (text.length < WINDOW && shortForms.size === 0)) return text;
  return replaceRanges(text, secretRanges(text));
}

/**
 * A code unit some output writes as more than itself: a control character, a quote, a backslash, a surrogate.
 * Written as every other unit left out, the units written as themselves.
 */
const ESCAPABLE = /[^\u0020\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/** How an output writes the code unit of `text` at `at`. */
type UnitEscape = (text: string, at: number) => string;

/** How an output writes a string: whole, and unit by unit (the same text in pieces, to map a range back). */
interface Escape {
  whole: (text: string) => string;
  unit: UnitEscape;
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** As JSON.stringify writes it (the JSON and logfmt log lines): a surrogate escaped only when it is not half of a pair. */
const JSON_ESCAPE: Escape = {
  whole: (text) => JSON.stringify(text).slice(1, -1),
  unit: (text, at) => {
    const code = text.charCodeAt(at);
    if (isHigh(code) ? isLow(text.charCodeAt(at + 1)) : isLow(code) && isHigh(text.charCodeAt(at - 1))) return text[at]!;
    return JSON.stringify(text[at]).slice(1, -1);
  },
};

const LABEL_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", '"': '\\"' };
/** As a Prometheus label value is written (metrics/text-render.ts). */
const LABEL_ESCAPE: Escape = {
  whole: (text) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"'),
  unit: (text, at) => LABEL_ESCAPES[text[at]!] ?? text[at]!,
};

/** Every secret range of `text` as `output` writes it, as the range of `text` it was written from; all of it if the pieces do not add up. */
function escapedRanges(text: string, output: Escape): Array<[number, number]> {
  const form = output.whole(text);
  const found = secretRanges(form);
  if (found.length === 0) return found;
  let written = "";
  // The unit of `text` each unit of `form` was written from.
  const origin: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const piece = output.unit(text, at);
    written += piece;
    for (let k = 0; k < piece.length; k++) origin.push(at);
  }
  if (written !== form) return [[0, text.length]];
  return found.map(([start, end]) => [origin[start]!, origin[end - 1]! + 1]);
}

/**
 * A venue string with every run of a known secret replaced, including one that escaping on the way out
 * would write: a secret holding `\n`, echoed unescaped into a JSON string, is read as a line feed, which a
 * label or a log line writes back as `\n`. Each unit an escape writes maps back to itself, so the run is
 * replaced in `text` and no output escapes it back. Text with no escapable unit (the usual case) costs one test.
 */
export function redactVenueText(text: string): string {
  if (windows.size === 0 && shortForms.size === 0) return text;
  if (!ESCAPABLE.test(text)) return redactKnown(text);
  return replaceRanges(text, [...secretRanges(text), ...escapedRanges(text, JSON_ESCAPE), ...escapedRanges(text, LABEL_ESCAPE)]);
}

/**
 * Whether `value`'s decimal text, as a sample writes it, holds a WINDOW-character run of a secret. Short
 * forms are left out: a value holding a few digits of a short key is still a value.
 */
export function isSecretNumber(value: number): boolean {
  if (!numberRuns) return false;
  const text = String(value);
  return text.length >= WINDOW && windowRanges(text, []).length > 0;
}

/** `text` with every known secret and any Authorization value replaced by <secret>. */
export function redact(text: string): string {
  return redactKnown(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
}
