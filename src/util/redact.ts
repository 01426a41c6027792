// The last line of defence: every configured secret, its base64 and JSON forms, and any Authorization value, as <secret>.

const REDACTED = "<secret>";
/** Shorter values (a one-letter test key) would blot out ordinary words; they are still never logged on purpose. */
const MIN_LENGTH = 4;

/** `Authorization: X`, `"authorization":"X"`, `authorization=X` (any case), and bare `Basic X` / `Bearer X`. */
const AUTHORIZATION = /(authorization\\?"?\s*[:=]\s*\\?"?)(?:(?:basic|bearer|digest|token)\s+)?[^\s"\\,}]+/gi;
// A credential, not a word: at least 8 characters with a digit or one of + / = in them.
const SCHEME = /\b(basic|bearer)\s+(?=[A-Za-z._~-]*[0-9+/=])[A-Za-z0-9+/=._~-]{8,}/gi;

const known = new Set<string>();
/** Longest first, so a secret containing another is replaced whole. */
let needles: string[] = [];

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
  let added = false;
  for (const value of values) {
    for (const form of forms(value)) {
      if (form.length < MIN_LENGTH || known.has(form)) continue;
      known.add(form);
      added = true;
    }
  }
  if (added) needles = [...known].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every known secret replaced: one substring search per form, about 3 ms for 24 forms
 * over a 3.6 MB exposition, so it is cheap enough for every new metrics body.
 */
export function redactKnown(text: string): string {
  let out = text;
  for (const needle of needles) {
    if (out.includes(needle)) out = out.split(needle).join(REDACTED);
  }
  return out;
}

/** `bytes` (UTF-8) with every known secret replaced; the same Buffer when none is in it (the usual case). */
export function redactKnownBytes(bytes: Buffer): Buffer {
  for (const needle of needles) {
    if (bytes.includes(needle)) return Buffer.from(redactKnown(bytes.toString("utf8")));
  }
  return bytes;
}

/** `text` with every known secret and any Authorization value replaced by <secret>. */
export function redact(text: string): string {
  return redactKnown(text).replace(AUTHORIZATION, `$1${REDACTED}`).replace(SCHEME, `$1 ${REDACTED}`);
}
