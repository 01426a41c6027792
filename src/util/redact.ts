// Every configured secret, any 12-byte run of it, its JSON and base64 forms, and any Authorization value,
// as <secret>, found in one pass over the text whatever the number of secrets. Every venue string is
// redacted where the readers take it (venue/fields.ts readId); log lines and pages by `redact`.

const REDACTED = "<secret>";
const REDACTED_BYTES = Buffer.from(REDACTED);
/** Shorter values (a one-letter test key) would blot out ordinary words; they are still never logged on purpose. */
const MIN_LENGTH = 4;
/**
 * Any run of this many bytes of a secret is redacted, wherever it stands and however the venue cut
 * it. A run of 12 characters is at least 12 bytes, so it holds a window.
 */
export const WINDOW = 12;

/** `Authorization: X`, `"authorization":"X"`, `authorization=X` (any case), and bare `Basic X` / `Bearer X`. */
const AUTHORIZATION = /(authorization\\?"?\s*[:=]\s*\\?"?)(?:(?:basic|bearer|digest|token)\s+)?[^\s"\\,}]+/gi;
// A credential, not a word: at least 8 characters with a digit or one of + / = in them.
const SCHEME = /\b(basic|bearer)\s+(?=[A-Za-z._~-]*[0-9+/=])[A-Za-z0-9+/=._~-]{8,}/gi;

/** Hash of WINDOW bytes: sum of byte * BASE^(WINDOW-1-j), mod 2^32 (confirms a window). */
const BASE = 0x01000193;
/** A bit per hash value (mod 2^23): a 1 MiB filter that turns away almost every probe of a text at the cost of one read. */
const FILTER_BITS = 23;
const FILTER_MASK = (1 << FILTER_BITS) - 1;
/**
 * The scan reads a GRAM-byte run every STRIDE bytes, not a window at every byte: a WINDOW-byte run of
 * a secret at any offset p holds the gram at the first multiple of STRIDE from p (it starts at most
 * STRIDE - 1 bytes in, and GRAM + STRIDE - 1 = WINDOW), and every gram of every secret is in the gram
 * filter, so no window is missed; a gram that passes the filter has the windows that could hold it
 * confirmed byte for byte. Reading five bytes every eight, not twelve at every byte, is a tenth of the work.
 */
const STRIDE = 8;
const GRAM = WINDOW - STRIDE + 1;

const known = new Set<string>();
/** Windows' hashes, to turn away a candidate window before comparing bytes. */
const filter = new Uint32Array(1 << (FILTER_BITS - 5));
/** Grams' hashes: what the strided scan probes. */
const grams = new Uint32Array(1 << (FILTER_BITS - 5));
/** The secrets' windows by hash, to confirm a filter hit byte for byte. */
const windows = new Map<number, Buffer[]>();
/** Forms shorter than WINDOW, matched whole (there are few: a key is rarely under 12 characters). */
const shortForms: Buffer[] = [];
/** The same forms as text, for texts too short to hold a window. */
const shortTexts: string[] = [];
/** Up to this many short forms, one native search each is faster than the pass below (a config's own few). */
const SHORT_SEARCHES = 2;
/** Short forms by their first four bytes (big-endian); a filter of every four bytes of every short form; the shortest's and longest's length. */
const shortByHead = new Map<number, Buffer[]>();
/** A bit per four-byte value (mod 2^20): 128 KiB each, sparse even with thousands of short keys. */
const QUAD_BITS = 20;
const shortQuads = new Uint32Array(1 << (QUAD_BITS - 5));
const shortHeads = new Uint32Array(1 << (QUAD_BITS - 5));
let shortMin = WINDOW;
let shortMax = 0;

function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [secret, json, JSON.stringify(json).slice(1, -1), Buffer.from(secret, "utf8").toString("base64")];
}

function hashAt(bytes: Buffer, at: number): number {
  let h = 0;
  for (let j = 0; j < WINDOW; j++) h = (Math.imul(h, BASE) + bytes[at + j]!) | 0;
  return h;
}

/** The gram filter's bit for the GRAM bytes at `at`. */
function gramBit(bytes: Buffer, at: number): number {
  let h = 0;
  for (let j = 0; j < GRAM; j++) h = (Math.imul(h, BASE) + bytes[at + j]!) | 0;
  return Math.imul(h, 0x9e3779b1) >>> (32 - FILTER_BITS);
}

function setBit(bits: Uint32Array, bit: number): void {
  bits[bit >>> 5]! |= 1 << (bit & 31);
}

function addWindows(bytes: Buffer): void {
  for (let at = 0; at + WINDOW <= bytes.length; at++) {
    const h = hashAt(bytes, at);
    setBit(filter, h & FILTER_MASK);
    const window = Buffer.from(bytes.subarray(at, at + WINDOW));
    const list = windows.get(h);
    if (list === undefined) windows.set(h, [window]);
    else if (!list.some((w) => w.equals(window))) list.push(window);
  }
  for (let at = 0; at + GRAM <= bytes.length; at++) setBit(grams, gramBit(bytes, at));
}

/** The four bytes at `at`, big-endian, as an unsigned integer. */
function quadAt(bytes: Buffer, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function quadBit(head: number): number {
  return Math.imul(head, 0x9e3779b1) >>> (32 - QUAD_BITS);
}

function addShort(bytes: Buffer): void {
  shortForms.push(bytes);
  shortTexts.push(bytes.toString("utf8"));
  shortMin = Math.min(shortMin, bytes.length);
  shortMax = Math.max(shortMax, bytes.length);
  const head = bytes.readUInt32BE(0);
  setBit(shortHeads, quadBit(head));
  for (let at = 0; at + 4 <= bytes.length; at++) setBit(shortQuads, quadBit(bytes.readUInt32BE(at)));
  const list = shortByHead.get(head);
  if (list === undefined) shortByHead.set(head, [bytes]);
  else list.push(bytes);
}

/**
 * Adds values to redact from now on (a config's keys, tokens, passwords, header values, and
 * `user:password` pairs, whose base64 is what goes on the wire). Kept for the life of the process:
 * a line about an old configuration is redacted too.
 */
export function addSecrets(values: Iterable<string>): void {
  for (const value of values) {
    for (const form of forms(value)) {
      if (form.length < MIN_LENGTH || known.has(form)) continue;
      known.add(form);
      const bytes = Buffer.from(form, "utf8");
      if (bytes.length < WINDOW) addShort(bytes);
      else addWindows(bytes);
    }
  }
}

function sameWindow(bytes: Buffer, at: number, h: number): boolean {
  const list = windows.get(h);
  if (list === undefined) return false;
  for (const window of list) if (bytes.compare(window, 0, WINDOW, at, at + WINDOW) === 0) return true;
  return false;
}

function hasBit(bits: Uint32Array, bit: number): boolean {
  return (bits[bit >>> 5]! & (1 << (bit & 31))) !== 0;
}

/** Adds [start, end) to ranges sorted by start, merging with the last when they touch. */
function addRange(ranges: Array<[number, number]>, start: number, end: number): void {
  const last = ranges[ranges.length - 1];
  if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
  else ranges.push([start, end]);
}

/** The WINDOW-byte runs of secrets in `bytes`, in order: a gram every STRIDE bytes, then the windows that could hold a gram that passed. */
function windowRanges(bytes: Buffer, ranges: Array<[number, number]>): void {
  const n = bytes.length;
  // The last window start confirmed, so windows shared by two grams are not read twice.
  let checked = -1;
  for (let q = 0; q + GRAM <= n; q += STRIDE) {
    if (!hasBit(grams, gramBit(bytes, q))) continue;
    const last = Math.min(q, n - WINDOW);
    for (let p = Math.max(q - STRIDE + 1, checked + 1, 0); p <= last; p++) {
      const h = hashAt(bytes, p);
      if (hasBit(filter, h & FILTER_MASK) && sameWindow(bytes, p, h)) addRange(ranges, p, p + WINDOW);
    }
    checked = Math.max(checked, last);
  }
}

/**
 * Where short forms stand in `bytes`, the same way as windows: four bytes every `shortMin - 3`, which
 * any short form's run holds wherever it starts, and on a hit the starts that could hold them,
 * checked by their first four bytes. One pass whatever the number of short forms (past SHORT_SEARCHES).
 */
function shortRanges(bytes: Buffer, ranges: Array<[number, number]>): void {
  if (shortForms.length <= SHORT_SEARCHES) {
    for (const form of shortForms) {
      for (let at = bytes.indexOf(form); at >= 0; at = bytes.indexOf(form, at + form.length)) ranges.push([at, at + form.length]);
    }
    return;
  }
  const n = bytes.length;
  const stride = shortMin - 3;
  let checked = -1;
  for (let q = 0; q + 4 <= n; q += stride) {
    if (!hasBit(shortQuads, quadBit(quadAt(bytes, q)))) continue;
    const last = Math.min(q, n - shortMin);
    for (let p = Math.max(q - shortMax + 4, checked + 1, 0); p <= last; p++) {
      const head = quadAt(bytes, p);
      if (!hasBit(shortHeads, quadBit(head))) continue;
      for (const form of shortByHead.get(head) ?? []) {
        if (p + form.length <= n && bytes.compare(form, 0, form.length, p, p + form.length) === 0) ranges.push([p, p + form.length]);
      }
    }
    checked = Math.max(checked, last);
  }
}

/** Where secrets stand in `bytes`, as sorted, merged [start, end) ranges; empty when none (the usual case). */
function secretRanges(bytes: Buffer): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  if (windows.size > 0 && bytes.length >= WINDOW) windowRanges(bytes, ranges);
  if (shortForms.length === 0) return ranges;
  shortRanges(bytes, ranges);
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of ranges) addRange(merged, start, end);
  return merged;
}

/** `bytes` (UTF-8) with every run of a known secret replaced; the same Buffer when none is in it (the usual case). */
export function redactKnownBytes(bytes: Buffer): Buffer {
  const ranges = secretRanges(bytes);
  if (ranges.length === 0) return bytes;
  const parts: Buffer[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(bytes.subarray(at, start), REDACTED_BYTES);
    at = end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/** UTF-8 of texts up to a third of its size is written here, not into a new Buffer: most texts hold no secret. */
const scratch = Buffer.allocUnsafe(4096);

/** `text` with every run of a known secret replaced: one pass over its bytes, whatever the number of secrets. */
export function redactKnown(text: string): string {
  if (text.length < MIN_LENGTH || (text.length < WINDOW && shortForms.length === 0)) return text;
  // Too short for a window (under WINDOW bytes): only a short form can be in it, found as text.
  if (text.length < WINDOW && shortTexts.length <= SHORT_SEARCHES && Buffer.byteLength(text) < WINDOW) {
    if (!shortTexts.some((form) => text.includes(form))) return text;
  } else if (text.length * 3 <= scratch.length) {
    const view = scratch.subarray(0, scratch.write(text, "utf8"));
    const out = redactKnownBytes(view);
    return out === view ? text : out.toString("utf8");
  }
  const bytes = Buffer.from(text, "utf8");
  const out = redactKnownBytes(bytes);
  return out === bytes ? text : out.toString("utf8");
}

/** `text` with every known secret and any Authorization value replaced by <secret>. */
export function redact(text: string): string {
  return redactKnown(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
}
