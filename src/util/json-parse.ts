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

/** Where one object element ends and the next begins: the only cut points tried. */
const BOUNDARY = /\}\s*,\s*\{/g;
/** Failed cuts (a boundary inside a string or a nested list) tolerated per batch before parsing the rest at once. */
const MAX_MISSES = 8;

/**
 * An array of objects, parsed in batches of about BATCH_CHARS: each cut is made at a `},{`, and a
 * batch is accepted only if JSON.parse takes `[batch]`. A cut inside a string or a nested list
 * leaves the batch unbalanced, so it fails and the next boundary is tried; every accepted batch is
 * valid JSON and the batches tile the array, so the result is JSON.parse's.
 */
async function parseArrayInSlices(
  text: string,
  open: number,
  reviver: Reviver | undefined,
  each: (item: unknown) => void,
  batchChars = BATCH_CHARS,
  yieldEvery = true,
): Promise<void> {
  const close = text.lastIndexOf("]");
  let start = open + 1;
  let deadline = performance.now() + SLICE_MS;
  while (start < close) {
    let parsed: unknown[] | undefined;
    let misses = 0;
    BOUNDARY.lastIndex = Math.min(start + batchChars, close);
    while (parsed === undefined) {
      const match = misses < MAX_MISSES ? BOUNDARY.exec(text) : null;
      const end = match === null || match.index >= close ? close : match.index + 1;
      try {
        parsed = JSON.parse(`[${text.slice(start, end)}]`, reviver) as unknown[];
        if (end < close && parsed.length === 0) throw new SyntaxError("empty array element");
        start = end === close ? close : text.indexOf(",", end) + 1;
      } catch (error) {
        if (end === close) throw error;
        misses++;
      }
    }
    for (const item of parsed) each(item);
    if (yieldEvery && performance.now() > deadline) {
      await yieldToLoop();
      deadline = performance.now() + SLICE_MS;
    }
  }
  if (skipSpace(text, close + 1) !== text.length) throw new SyntaxError("text after the array");
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
  const out: unknown[] = [];
  await parseArrayInSlices(text, open, reviver, (item) => out.push(item));
  return out;
}

/** Elements handed out one by one are parsed in batches of about this many characters (see parseJsonItems). */
const ITEM_BATCH_CHARS = 1 << 16;

/**
 * A top-level JSON array handed to `each` element by element as it is parsed, in batches of about
 * 64 K characters: each batch's parsed values can die young, where one JSON.parse keeps the whole
 * document alive (and copied into the old generation) until the last element is read. Resolves
 * false, handing nothing, when the text is JSON but not an array; throws SyntaxError like JSON.parse.
 * Elements may have been handed out before a later part turns out not to be JSON.
 */
export async function parseJsonItems(text: string, each: (item: unknown) => void): Promise<boolean> {
  const open = skipSpace(text, 0);
  if (text.charCodeAt(open) !== 91) {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return false;
    for (const item of value) each(item);
    return true;
  }
  await parseArrayInSlices(text, open, undefined, each, ITEM_BATCH_CHARS, text.length >= CHUNKED_FROM);
  return true;
}
