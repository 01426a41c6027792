// A venue that echoes a secret after one encoding step: percent-encoded, as HTML numeric or hex entities, in
// upper or lower case, base64-encoded at any byte offset inside a longer message, or as hex. No 12-character run
// of the encoded secret reaches a venue string the exporter keeps, nor any output or the log.

import { decodeHTML } from "entities";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { configFromObject } from "./helpers/config-files.js";
import { echoedEverywhere, leaks } from "./helpers/echoing-venue.js";
import { fields, redactor } from "./helpers/redactor.js";

const bytesOf = (text: string) => Buffer.from(text, "utf8");
const WINDOW = 12;

/** Every 12-character run of `secret`. */
const runs = (secret: string) => Array.from({ length: secret.length - WINDOW + 1 }, (_, at) => secret.slice(at, at + WINDOW));

/** The base64 characters that `bytes` alone decide, `prefix` bytes into a message. */
function base64Inside(bytes: Buffer, prefix: number): string {
  const text = Buffer.concat([Buffer.alloc(prefix), bytes, Buffer.alloc(2)]).toString("base64");
  return text.slice(Math.ceil((prefix * 8) / 6), Math.floor(((prefix + bytes.length) * 8) / 6));
}

const perCharacter = (encode: (c: string) => string) => ({
  echo: (s: string) => [...s].map(encode).join(""),
  shown: (run: string) => [[...run].map(encode).join("")],
});
const base64At = (prefix: number) => ({
  echo: (s: string) => Buffer.concat([Buffer.from("ab".slice(0, prefix)), bytesOf(s), Buffer.from("!")]).toString("base64"),
  // A run may sit at any of the three offsets inside the echoed bytes.
  shown: (run: string) => [0, 1, 2].map((at) => base64Inside(bytesOf(run), at)),
});
const ASCII_PERCENT = (c: string) => (c.charCodeAt(0) < 0x80 ? `%${c.charCodeAt(0).toString(16).padStart(2, "0")}` : encodeURIComponent(c));

/** Each encoding a venue may echo a secret in: what it sends, and how a 12-character run of the secret would show in it. */
const ENCODINGS: Record<string, { echo(secret: string): string; shown(run: string): string[] }> = {
  "percent-encoded": perCharacter(encodeURIComponent),
  "percent-encoded, every ASCII character": perCharacter(ASCII_PERCENT),
  "HTML numeric entities": perCharacter((c) => `&#${c.codePointAt(0)};`),
  "HTML hex entities": perCharacter((c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`),
  "upper case": perCharacter((c) => c.toUpperCase()),
  "lower case": perCharacter((c) => c.toLowerCase()),
  "base64 at byte offset 0": base64At(0),
  "base64 at byte offset 1": base64At(1),
  "base64 at byte offset 2": base64At(2),
  hex: perCharacter((c) => bytesOf(c).toString("hex")),
  "hex in upper case": perCharacter((c) => bytesOf(c).toString("hex").toUpperCase()),
};

/** The encoded runs of `secret` that `text` still shows. */
const shownIn = (text: string, secret: string, name: string) =>
  runs(secret).flatMap((run) => ENCODINGS[name]!.shown(run).filter((form) => text.includes(form)));

const SECRET_CHARS = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=é");
const secretArb = fc.string({ unit: SECRET_CHARS, minLength: 16, maxLength: 80 });
const noise = fc.string({ unit: fc.constantFrom(..." ,:{}[]\"'abcxyz0189\n%&#;"), maxLength: 30 });

describe("a secret echoed after one encoding step", () => {
  it.each(Object.keys(ENCODINGS))("leaves no 12-character run of it %s in a venue string or a log line", (name) => {
    fc.assert(
      fc.property(secretArb, noise, noise, (secret, before, after) => {
        redactor.hold([secret]);
        const text = `${before}${ENCODINGS[name]!.echo(secret)}${after}`;
        expect(shownIn(fields.id(text) ?? "", secret, name)).toEqual([]);
        expect(shownIn(redactor.redact(text), secret, name)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it("leaves text alone whose escapes stand for no secret", () => {
    redactor.hold(["Kp2Wm9Xv-zq7L-41hd"]);
    for (const text of ["100%25 of margin", "R&#38;D desk", "&#x1F600; &#99999999;", "%7E%2Fpath", "3% of 40%"]) expect(fields.id(text)).toBe(text);
  });

  it.each(Object.keys(ENCODINGS))("shows no part of a key echoed %s in /metrics, /probe, the debug probe, the page or the log", async (name) => {
    const key = "Zq7+Kp2/Wm9Xv=41hdQ8";
    const all = await echoedEverywhere(
      [key],
      (url) =>
        configFromObject(
          {
            venue: { base_url: url },
            web: { listen_address: "127.0.0.1:0" },
            accounts: [{ name: "a", collateral_ids: ["X"], auth: { type: "api_key", header_name: "X-Desk-Key", key } }],
          },
          {},
          "/",
        ),
      (secret) => ENCODINGS[name]!.echo(secret),
    );
    expect(all).toContain("<secret>");
    // The page writes `&` as `&amp;`: a reader would see the entities it stands for.
    expect([...shownIn(all, key, name), ...shownIn(decodeHTML(all), key, name), ...leaks(all, key)]).toEqual([]);
  });
});
