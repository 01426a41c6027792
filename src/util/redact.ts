// Replaces every configured secret (any 12-character run, in any ASCII case, as written or after one encoding step) and any Authorization value with <secret>.

import { decodeHTML } from "entities";
import { escapeHtml, escapeHtmlUnit } from "./html-escape.js";

const REDACTED = "<secret>";
/** Shorter values would blot out ordinary words. */
const MIN_LENGTH = 4;
/** Any run of this many characters of a secret is redacted, however the venue cut it. */
export const WINDOW = 12;
/** GRAM + STRIDE - 1 = WINDOW: every window holds the gram at a multiple of STRIDE, so only windows around a known gram are looked up. It buys the answer's check: 2 MB in 1.6 ms with one secret, 1.9 ms with 1,001, against 23.6 and 27.8 ms for a window at every byte. */
const STRIDE = 8;
const GRAM = WINDOW - STRIDE + 1;

const AUTHORIZATION = /(authorization\\?"?\s*[:=]\s*\\?"?)(?:(?:basic|bearer|digest|token)\s+)?[^\s"\\,}]+/gi;
// A credential, not a word: 8 characters or more, with a digit or one of + / = in them.
const SCHEME = /\b(basic|bearer)\s+(?=[A-Za-z._~-]*[0-9+/=])[A-Za-z0-9+/=._~-]{8,}/gi;

const NUMBER_RUN = /^-?\d*\.?\d*(?:e(?:[+-]\d*)?)?$/;
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Letters in lower case, every position kept (ASCII's toLowerCase keeps them; other code units one by one); secrets are kept folded, text looked up folded. */
const FOLDABLE = /[A-Z]+|[^\0-~]/g;
const foldUnit = (unit: string): string => {
  const lower = unit.toLowerCase();
  return lower.length === unit.length ? lower : unit;
};
const NON_ASCII = /[^\0-\x7f]/;
const fold = (text: string): string => (NON_ASCII.test(text) ? text.replace(FOLDABLE, foldUnit) : text.toLowerCase());

/** The base64 characters `bytes` alone decide when they start `offset` bytes into a message: where any part of it is echoed. */
function base64Inside(bytes: Buffer, offset: number): string {
  const text = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString("base64");
  return text.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
}

/** As written, in JSON once and twice, percent-encoded, hex, base64 at each byte offset, HTML-decoded; entities are decoded in the text instead (stored, they cost memory). */
function forms(secret: string): string[] {
  return [...new Set([secret, decodeHTML(secret)])].flatMap((form) => {
    const json = JSON.stringify(form).slice(1, -1);
    const bytes = Buffer.from(form, "utf8");
    return [
      form,
      json,
      JSON.stringify(json).slice(1, -1),
      encodeURIComponent(form),
      bytes.toString("hex"),
      bytes.toString("base64"),
      base64Inside(bytes, 1),
      base64Inside(bytes, 2),
    ];
  });
}

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

/** One encoding step a venue may have taken, undone: UTF-8 bytes percent-encoded, or a character as a numeric HTML entity. */
const ENCODED = /(?:%[0-9a-f]{2})+|&#(?:x[0-9a-f]{1,6}|[0-9]{1,7});?/gi;

type Keep = (piece: string, start: number, end: number) => void;

/** A run of percent escapes at `start`, each character decoded from the escapes of its UTF-8 bytes. */
function keepPercents(run: string, start: number, keep: Keep): void {
  const bytes = Buffer.from(run.replaceAll("%", ""), "hex");
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    // A UTF-8 lead byte's high bits give its character's length: 0xxx or 10xx 1, 110x 2, 1110 3, 1111 4.
    const n = 1 + Number(lead >= 0xc0) + Number(lead >= 0xe0) + Number(lead >= 0xf0);
    keep(bytes.subarray(i, i + n).toString("utf8"), start + 3 * i, start + 3 * Math.min(i + n, bytes.length));
    i += n;
  }
}

function keepEntity(entity: string, start: number, keep: Keep): void {
  const hex = entity[2] === "x" || entity[2] === "X";
  const code = Number.parseInt(entity.slice(hex ? 3 : 2), hex ? 16 : 10);
  keep(code <= 0x10ffff ? String.fromCodePoint(code) : entity, start, start + entity.length);
}

/** A code unit some output writes as more than itself: a control character, a quote, a backslash, a surrogate, an HTML special. */
const ESCAPABLE = /[^\u0020\u0021\u0023-\u0025\u0028-\u003b\u003d\u003f-\u005b\u005d-\ud7ff\ue000-\uffff]/;

type UnitEscape = (text: string, at: number) => string;

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
const LABEL_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", '"': '\\"' };

/** JSON's, a label value's and the status page's escaping, whole (the quick look) and per code unit (to map a secret found back). */
const ESCAPES: Array<[(text: string) => string, UnitEscape]> = [
  [
    (text) => JSON.stringify(text).slice(1, -1),
    (text, at) => {
      const code = text.charCodeAt(at);
      if (isHigh(code) ? isLow(text.charCodeAt(at + 1)) : isLow(code) && isHigh(text.charCodeAt(at - 1))) return text[at]!;
      return JSON.stringify(text[at]).slice(1, -1);
    },
  ],
  [(text) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"'), (text, at) => LABEL_ESCAPES[text[at]!] ?? text[at]!],
  [escapeHtml, (text, at) => escapeHtmlUnit(text[at]!)],
];

const ESCAPE_START = /%|&#/;

/** The secrets of the configurations in use, and every venue string checked against them: one per process, passed to what reads the venue or writes out. */
export class Redactor {
  readonly #windows = new Set<string>();
  readonly #grams = new Set<string>();
  #numberRuns = false;
  /** Forms shorter than WINDOW, found whole by one pattern, longest first. */
  readonly #shortForms = new Set<string>();
  #shortPattern: RegExp | undefined;
  /** How many holders (configurations in use) know each secret: a secret no holder knows any more leaves the indexes. */
  readonly #holders = new Map<string, number>();

  /** Adds values to redact until the returned release is called: a configuration holds its secrets while anything of it runs. */
  hold(values: Iterable<string>): () => void {
    const held = [...new Set(values)];
    for (const value of held) this.#holders.set(value, (this.#holders.get(value) ?? 0) + 1);
    this.#index(held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const before = this.#holders.size;
      for (const value of held) {
        const n = this.#holders.get(value)! - 1;
        if (n === 0) this.#holders.delete(value);
        else this.#holders.set(value, n);
      }
      if (this.#holders.size === before) return;
      this.#windows.clear();
      this.#grams.clear();
      this.#shortForms.clear();
      this.#numberRuns = false;
      this.#shortPattern = undefined;
      this.#index(this.#holders.keys());
    };
  }

  #index(values: Iterable<string>): void {
    const shortBefore = this.#shortForms.size;
    for (const value of values) {
      // A number's text is the secret's own (hex forms are mostly digits: they would send every number through the lookup).
      for (let at = 0; at + WINDOW <= value.length && !this.#numberRuns; at++) this.#numberRuns = NUMBER_RUN.test(value.slice(at, at + WINDOW));
      for (const form of new Set(forms(value).map(fold))) {
        if (form.length < MIN_LENGTH) continue;
        if (form.length < WINDOW) this.#shortForms.add(form);
        for (let at = 0; at + WINDOW <= form.length; at++) this.#windows.add(form.slice(at, at + WINDOW));
        for (let at = 0; at + GRAM <= form.length; at++) this.#grams.add(form.slice(at, at + GRAM));
      }
    }
    if (this.#shortForms.size === shortBefore && this.#shortPattern !== undefined) return;
    if (this.#shortForms.size === 0) return;
    this.#shortPattern = new RegExp(
      [...this.#shortForms]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join("|"),
      "gi",
    );
    // Compiled now, as the configuration loads, not by the first venue string a scrape reads: thousands of forms take long.
    this.#shortPattern.test("");
  }

  #windowRanges(original: string, found: Array<[number, number]>): Array<[number, number]> {
    let checked = -1;
    // No window fits a shorter text; a longer one is folded once, and its grams and windows are slices of that.
    const text = original.length < WINDOW ? original : fold(original);
    for (let q = 0; text.length >= WINDOW && q + GRAM <= text.length && this.#windows.size > 0; q += STRIDE) {
      if (!this.#grams.has(text.slice(q, q + GRAM))) continue;
      const last = Math.min(q, text.length - WINDOW);
      for (let p = Math.max(q - STRIDE + 1, checked + 1, 0); p <= last; p++) {
        if (this.#windows.has(text.slice(p, p + WINDOW))) found.push([p, p + WINDOW]);
      }
      checked = Math.max(checked, last);
    }
    return found;
  }

  #secretRanges(text: string): Array<[number, number]> {
    const found = this.#windowRanges(text, []);
    const pattern = this.#shortPattern;
    if (pattern === undefined) return found;
    // From every position a form starts at, the longest one there: together they cover every occurrence of every form.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      found.push([match.index, match.index + match[0].length]);
      pattern.lastIndex = match.index + 1;
    }
    return found;
  }

  /** Adds to `found` the secrets in `text` with its percent and numeric-entity escapes decoded, as spans of `text`. */
  #decodedRanges(text: string, found: Array<[number, number]>): Array<[number, number]> {
    if (!ESCAPE_START.test(text)) return found;
    let view = "";
    const from: number[] = [];
    const to: number[] = [];
    const keep: Keep = (piece, start, end) => {
      view += piece;
      for (let k = 0; k < piece.length; k++) {
        from.push(start);
        to.push(end);
      }
    };
    let at = 0;
    for (const match of text.matchAll(ENCODED)) {
      for (; at < match.index; at++) keep(text[at]!, at, at + 1);
      at = match.index + match[0].length;
      (match[0][0] === "%" ? keepPercents : keepEntity)(match[0], match.index, keep);
    }
    if (from.length === 0) return found;
    for (; at < text.length; at++) keep(text[at]!, at, at + 1);
    for (const [start, end] of this.#secretRanges(view)) found.push([from[start]!, to[end - 1]!]);
    return found;
  }

  #escapedRanges(text: string, [whole, unit]: (typeof ESCAPES)[number]): Array<[number, number]> {
    const form = whole(text);
    const found = this.#secretRanges(form);
    if (found.length === 0) return found;
    let written = "";
    const origin: number[] = [];
    for (let at = 0; at < text.length; at++) {
      const piece = unit(text, at);
      written += piece;
      for (let k = 0; k < piece.length; k++) origin.push(at);
    }
    if (written !== form) return [[0, text.length]];
    return found.map(([start, end]) => [origin[start]!, origin[end - 1]! + 1]);
  }

  /** `text` with every run of a known secret replaced, as written or percent- or entity-encoded. */
  known(text: string): string {
    if (text.length < MIN_LENGTH || (text.length < WINDOW && this.#shortForms.size === 0)) return text;
    return replaceRanges(text, this.#decodedRanges(text, this.#secretRanges(text)));
  }

  /** A venue string with every known secret replaced, including one an output's escaping would write back (a line feed as `\n`, `&` as `&amp;`). */
  venueText(text: string): string {
    if (this.#windows.size === 0 && this.#shortForms.size === 0) return text;
    if (!ESCAPABLE.test(text)) return this.known(text);
    const escaped = ESCAPES.flatMap((output) => this.#escapedRanges(text, output));
    return replaceRanges(text, [...this.#decodedRanges(text, this.#secretRanges(text)), ...escaped]);
  }

  /** Whether `value`'s decimal text holds a WINDOW-character run of a secret; a few digits of a short key are still a value. */
  isSecretNumber(value: number): boolean {
    if (!this.#numberRuns) return false;
    const text = String(value);
    return text.length >= WINDOW && this.#windowRanges(text, []).length > 0;
  }

  /** `text` with every known secret and any Authorization value replaced by <secret>. */
  redact(text: string): string {
    return this.known(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
  }
}
