// JSON.parse that keeps the event loop breathing: a large top-level array is parsed element by
// element, yielding between slices, so a 30 MB order list never blocks other scrapes for long.

import { DOUBLE_DIGITS, significantDigits } from "./decimal.js";

/**
 * Bodies below this are parsed in one go (JSON.parse takes about 5 ms per MiB here): slicing costs
 * more CPU, and is only worth it where one parse would stall the loop for tens of milliseconds.
 */
const CHUNKED_FROM = 8 << 20;
/** Elements are handed to JSON.parse in batches of about this many characters. */
const BATCH_CHARS = 1 << 18;
/** Work between yields, in milliseconds. */
const SLICE_MS = 8;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

/** Where one object element ends and the next begins: the only cut points tried in a text. */
const BOUNDARY = /\}\s*,\s*\{/g;
/** Failed cuts (a boundary inside a string or a nested list) tolerated per batch before parsing the rest at once. */
const MAX_MISSES = 8;

/** The next cut at or after `from`: just past an element's `}`, and where the next element's `{` is; undefined when none is left before the array's `]`. */
type NextCut = (from: number) => [end: number, next: number] | undefined;

/**
 * The elements of a top-level array, between `start` (just past its `[`) and `close` (its `]`),
 * parsed in batches of about `batch` units and handed to `each`. Each cut is made at a `},{` and a
 * batch is accepted only if JSON.parse takes it as an array: a cut inside a string or a nested list
 * leaves the batch unbalanced, so it fails and the next cut is tried (MAX_MISSES of them, then the
 * rest is parsed at once). Every accepted batch is valid JSON and the batches tile the array, so
 * the elements are JSON.parse's. With `yieldEvery`, the event loop gets a turn every SLICE_MS.
 */
async function parseInBatches(
  start: number,
  close: number,
  batch: number,
  nextCut: NextCut,
  parse: (start: number, end: number) => unknown[],
  each: (item: unknown) => void,
  yieldEvery: boolean,
): Promise<void> {
  let deadline = performance.now() + SLICE_MS;
  while (start < close) {
    let parsed: unknown[] | undefined;
    let misses = 0;
    let from = Math.min(start + batch, close);
    while (parsed === undefined) {
      const cut = misses < MAX_MISSES ? nextCut(from) : undefined;
      const end = cut === undefined ? close : cut[0];
      try {
        parsed = parse(start, end);
        if (cut !== undefined && parsed.length === 0) throw new SyntaxError("empty array element");
        start = cut === undefined ? close : cut[1];
      } catch (error) {
        if (cut === undefined) throw error;
        misses++;
        from = end;
      }
    }
    for (const item of parsed) each(item);
    if (yieldEvery && performance.now() > deadline) {
      await yieldToLoop();
      deadline = performance.now() + SLICE_MS;
    }
  }
}

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** A JSON number with more significant digits than a double keeps is given as its source text. */
const keepLongNumber: Reviver = (_key, value, context) =>
  typeof value === "number" && context?.source !== undefined && significantDigits(context.source) > DOUBLE_DIGITS ? context.source : value;

/**
 * Parses JSON text; throws SyntaxError like JSON.parse on anything that is not JSON. With
 * `keepLongNumbers`, a number of more than 15 significant digits comes back as its text (slower).
 */
export async function parseJson(text: string, keepLongNumbers = false): Promise<unknown> {
  const reviver = keepLongNumbers ? (keepLongNumber as (this: unknown, key: string, value: unknown) => unknown) : undefined;
  if (text.length < CHUNKED_FROM) return JSON.parse(text, reviver);
  const open = skipSpace(text, 0);
  if (text.charCodeAt(open) !== 91) return JSON.parse(text, reviver);
  const close = text.lastIndexOf("]");
  const nextCut: NextCut = (from) => {
    BOUNDARY.lastIndex = from;
    const match = BOUNDARY.exec(text);
    return match === null || match.index >= close ? undefined : [match.index + 1, match.index + match[0].length - 1];
  };
  const out: unknown[] = [];
  const parse = (start: number, end: number) => JSON.parse(`[${text.slice(start, end)}]`, reviver) as unknown[];
  await parseInBatches(open + 1, close, BATCH_CHARS, nextCut, parse, (item) => out.push(item), true);
  if (skipSpace(text, close + 1) !== text.length) throw new SyntaxError("text after the array");
  return out;
}

/** Elements handed out one by one are parsed in batches of about this many bytes (see parseJsonItems). */
const ITEM_BATCH_BYTES = 1 << 16;

const isSpaceByte = (c: number | undefined) => c === 32 || c === 10 || c === 13 || c === 9;

/** Just past the `}` of the next `}\s*,\s*{` at or after `from` (before `close`), and where the next element starts; else undefined. */
function nextBoundary(bytes: Buffer, from: number, close: number): [end: number, next: number] | undefined {
  let at = from;
  while (at < close) {
    const brace = bytes.indexOf(0x7d, at);
    if (brace < 0 || brace >= close) return undefined;
    let i = brace + 1;
    while (isSpaceByte(bytes[i])) i++;
    if (bytes[i] === 0x2c) {
      i++;
      while (isSpaceByte(bytes[i])) i++;
      if (bytes[i] === 0x7b && i < close) return [brace + 1, i];
    }
    at = brace + 1;
  }
  return undefined;
}

/**
 * A top-level JSON array, from its UTF-8 bytes, handed to `each` element by element as it is
 * parsed, in batches of about 64 KiB decoded one at a time: no string of the whole body is made, and
 * each batch's values can die young, where one JSON.parse keeps the whole document alive (copied
 * into the old generation) until the last element is read. Cuts are made at a `},{` (never inside
 * a UTF-8 sequence) and a batch is accepted only if JSON.parse takes it (parseInBatches).
 * Resolves false, handing nothing, when the body is JSON but not an array; throws SyntaxError like
 * JSON.parse. Elements may have been handed out before a later part turns out not to be JSON.
 */
export async function parseJsonItems(bytes: Buffer, each: (item: unknown) => void): Promise<boolean> {
  let open = 0;
  while (isSpaceByte(bytes[open])) open++;
  if (bytes[open] !== 0x5b) {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    if (!Array.isArray(value)) return false;
    for (const item of value) each(item);
    return true;
  }
  const close = bytes.lastIndexOf(0x5d);
  const parse = (start: number, end: number) => JSON.parse(`[${bytes.toString("utf8", start, end)}]`) as unknown[];
  await parseInBatches(open + 1, close, ITEM_BATCH_BYTES, (from) => nextBoundary(bytes, from, close), parse, each, bytes.length >= CHUNKED_FROM);
  for (let i = close + 1; i < bytes.length; i++) if (!isSpaceByte(bytes[i])) throw new SyntaxError("text after the array");
  return true;
}
