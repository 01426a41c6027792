// The last line of defence: every configured secret, any 12-byte run of it, its JSON and base64 forms,
// and any Authorization value, as <secret>, found in one pass over the text whatever the number of secrets.

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

/** Rolling hash of WINDOW bytes: sum of byte * BASE^(WINDOW-1-j), mod 2^32. */
const BASE = 0x01000193;
const BASE_TOP = (() => {
  let p = 1;
  for (let i = 1; i < WINDOW; i++) p = Math.imul(p, BASE);
  return p;
})();
/** A bit per hash value (mod 2^23): a 1 MiB filter that turns away almost every window of a text at the cost of one read. */
const FILTER_BITS = 23;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

const known = new Set<string>();
const filter = new Uint32Array(1 << (FILTER_BITS - 5));
/** The secrets' windows by hash, to confirm a filter hit byte for byte. */
const windows = new Map<number, Buffer[]>();
/** Forms shorter than WINDOW, matched whole (there are few: a key is rarely under 12 characters). */
let shortForms: Buffer[] = [];
/** Label values seen lately and what they became: the same market ids come back in every answer. */
const memo = new Map<string, string>();
const MEMO_ENTRIES = 16_384;
const MEMO_MAX_LENGTH = 256;

function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [secret, json, JSON.stringify(json).slice(1, -1), Buffer.from(secret, "utf8").toString("base64")];
}

function hashAt(bytes: Buffer, at: number): number {
  let h = 0;
  for (let j = 0; j < WINDOW; j++) h = (Math.imul(h, BASE) + bytes[at + j]!) | 0;
  return h;
}

function addWindows(bytes: Buffer): void {
  for (let at = 0; at + WINDOW <= bytes.length; at++) {
    const h = hashAt(bytes, at);
    const bit = h & FILTER_MASK;
    filter[bit >>> 5]! |= 1 << (bit & 31);
    const window = Buffer.from(bytes.subarray(at, at + WINDOW));
    const list = windows.get(h);
    if (list === undefined) windows.set(h, [window]);
    else if (!list.some((w) => w.equals(window))) list.push(window);
  }
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
      if (bytes.length < WINDOW) shortForms = [...shortForms, bytes].sort((a, b) => b.length - a.length);
      else addWindows(bytes);
    }
  }
  memo.clear();
}

function sameWindow(bytes: Buffer, at: number, h: number): boolean {
  const list = windows.get(h);
  if (list === undefined) return false;
  for (const window of list) if (bytes.compare(window, 0, WINDOW, at, at + WINDOW) === 0) return true;
  return false;
}

/** Where secrets stand in `bytes`, as sorted, merged [start, end) ranges; empty when none (the usual case). */
function secretRanges(bytes: Buffer): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const n = bytes.length;
  if (windows.size > 0 && n >= WINDOW) {
    let h = hashAt(bytes, 0);
    for (let at = 0; ; at++) {
      const bit = h & FILTER_MASK;
      if ((filter[bit >>> 5]! & (1 << (bit & 31))) !== 0 && sameWindow(bytes, at, h)) {
        const last = ranges[ranges.length - 1];
        if (last !== undefined && at <= last[1]) last[1] = at + WINDOW;
        else ranges.push([at, at + WINDOW]);
      }
      if (at + WINDOW >= n) break;
      h = (Math.imul(h - Math.imul(bytes[at]!, BASE_TOP), BASE) + bytes[at + WINDOW]!) | 0;
    }
  }
  if (shortForms.length === 0) return ranges;
  for (const form of shortForms) {
    for (let at = bytes.indexOf(form); at >= 0; at = bytes.indexOf(form, at + form.length)) ranges.push([at, at + form.length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
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

/** `text` with every run of a known secret replaced: one pass over its bytes, whatever the number of secrets. */
export function redactKnown(text: string): string {
  if (text.length < MIN_LENGTH || (text.length < WINDOW && shortForms.length === 0)) return text;
  const bytes = Buffer.from(text, "utf8");
  const out = redactKnownBytes(bytes);
  return out === bytes ? text : out.toString("utf8");
}

/** A venue string before it is cut to a label value: redacted first, so no cut can leave part of a secret. */
export function redactLabel(text: string): string {
  const seen = memo.get(text);
  if (seen !== undefined) return seen;
  const out = redactKnown(text);
  if (text.length > MEMO_MAX_LENGTH) return out;
  if (memo.size >= MEMO_ENTRIES) memo.clear();
  memo.set(text, out);
  return out;
}

/** `text` with every known secret and any Authorization value replaced by <secret>. */
export function redact(text: string): string {
  return redactKnown(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
}
