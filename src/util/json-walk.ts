// Reads a JSON body's one list in one parse, within bounds on items, depth, held values and event-loop time; long numbers kept as text.

import { Tokenizer, TokenParser, TokenType } from "@streamparser/json";
import { DOUBLE_DIGITS, significantDigits } from "./decimal.js";

const STREAM_FROM = 1 << 20;
/** Past STREAM_FROM characters, a body with more values than this is streamed: JSON.parse's memory grows with the values it makes. */
const PARSE_MAX_VALUES = 500_000;
/** Values the streaming parser may hold outside the list's finished items; a body past it is refused. */
export const MAX_HELD_VALUES = 100_000;
const CHUNK_BYTES = 64 * 1024;
const SLICE_MS = 8;
export const MAX_DEPTH = 64;

/** Why a body could not be walked: not JSON, nested too deep, too many values held at once, or the caller gave up (its signal). */
export class JsonWalkError extends Error {
  override readonly name = "JsonWalkError";

  constructor(
    readonly reason: "syntax" | "depth" | "size" | "aborted",
    message: string,
  ) {
    super(message);
  }
}

const notJson = (): JsonWalkError => new JsonWalkError("syntax", "not valid JSON");

export interface WalkOptions {
  /** The list to walk: undefined for a top-level array, else the member of a top-level object holding it. */
  list?: string;
  maxItems: number;
  signal?: AbortSignal;
}

export interface Walked {
  /** The top-level value; streamed, an object's nested members are empty `{}`/`[]`. Never read the list's items here. */
  root: unknown;
  items: number;
  overCap: number;
}

function pacer(signal: AbortSignal | undefined): () => Promise<void> {
  let until = performance.now() + SLICE_MS;
  return async () => {
    if (performance.now() < until) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted === true) throw new JsonWalkError("aborted", "gave up before the body was read");
    until = performance.now() + SLICE_MS;
  };
}

const isLong = (text: string): boolean => text.length > DOUBLE_DIGITS && significantDigits(text) > DOUBLE_DIGITS;

const keepLongNumber = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === "number" && context?.source !== undefined && isLong(context.source) ? context.source : value;

const LONG_RUN = DOUBLE_DIGITS + 1;
const inNumber = (code: number): boolean => (code >= 48 && code <= 57) || code === 46;
/** Where a value starts: the body's start or after `:`, `,` or `[`, white space between, then an optional `-`. */
function startsValue(text: string, at: number): boolean {
  let before = text.charCodeAt(at - 1) === 45 ? at - 2 : at - 1;
  while (before >= 0 && /\s/.test(text[before]!)) before--;
  return before < 0 || ":,[".includes(text[before]!);
}

/**
 * Whether the text may hold a number of over DOUBLE_DIGITS digits (a run of LONG_RUN digits and dots where a value
 * starts); only then does JSON.parse get the reviver. Every such run covers one position in LONG_RUN, so only those are read.
 */
function mayHoldLongNumber(text: string): boolean {
  for (let at = LONG_RUN - 1; at < text.length; at += LONG_RUN) {
    if (!inNumber(text.charCodeAt(at))) continue;
    let start = at;
    while (start > 0 && inNumber(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && inNumber(text.charCodeAt(end))) end++;
    if (end - start >= LONG_RUN && startsValue(text, start)) return true;
    at = end;
  }
  return false;
}

/** Whether JSON.parse can take the body (as text) whole within its time and memory bounds. */
export function parsesWhole(text: string): boolean {
  if (text.length < STREAM_FROM) return true;
  let values = 0;
  for (const mark of [",", "{", "["]) {
    for (let at = text.indexOf(mark); at >= 0 && values <= PARSE_MAX_VALUES; at = text.indexOf(mark, at + 1)) values++;
  }
  return values <= PARSE_MAX_VALUES;
}

function listOf(root: unknown, list: string | undefined): unknown[] | undefined {
  const isObject = typeof root === "object" && root !== null && !Array.isArray(root);
  const value = list === undefined ? root : isObject ? (root as Record<string, unknown>)[list] : undefined;
  return Array.isArray(value) ? value : undefined;
}

export async function walkJsonParsed(body: Buffer | string, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  let root: unknown;
  try {
    const text = typeof body === "string" ? body : body.toString("utf8");
    root = mayHoldLongNumber(text) ? JSON.parse(text, keepLongNumber) : JSON.parse(text);
  } catch {
    throw notJson();
  }
  const items = listOf(root, options.list) ?? [];
  const tick = pacer(options.signal);
  const kept = Math.min(items.length, options.maxItems);
  for (let i = 0; i < kept; i++) {
    each(items[i]);
    if ((i & 255) === 255) await tick();
  }
  return { root, items: items.length, overCap: items.length - kept };
}

class ExactTokenizer extends Tokenizer {
  override parseNumber(text: string): number {
    return (isLong(text) ? text : Number(text)) as number;
  }
}

/** The streamed walk: each list item is emitted and forgotten; held values and depth stay bounded whatever the body. */
export async function walkJsonStreamed(bytes: Buffer, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  const tokenizer = new ExactTokenizer({ stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  const parser = new TokenParser({ paths: [options.list === undefined ? "$.*" : `$.${options.list}.*`], keepStack: false });
  let failure: JsonWalkError | undefined;
  const fail = (error: JsonWalkError): void => {
    failure ??= error;
  };
  tokenizer.onError = () => fail(notJson());
  parser.onError = () => fail(notJson());

  let root: unknown;
  const members: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let depth = 0;
  const enter = (): void => {
    if (++depth > MAX_DEPTH) fail(new JsonWalkError("depth", `nested deeper than ${MAX_DEPTH}`));
  };
  let key: string | undefined;
  const itemDepth = options.list === undefined ? 1 : 2;
  let inList = false;
  let held = 0;
  let heldBeforeItem = 0;
  let items = 0;
  // Past the cap the list's tokens are only counted, never handed to the parser, which would build each item to drop it.
  let skipping = false;
  let overCap = 0;
  tokenizer.onToken = (info) => {
    if (failure !== undefined) return;
    const { token, value } = info;
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    const closes = token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET;
    const isValue = token !== TokenType.COMMA && token !== TokenType.COLON && !closes;
    if (skipping) {
      if (opens) return enter();
      if (!closes || depth > itemDepth) {
        if (closes) depth--;
        else if (token === TokenType.COMMA && depth === itemDepth) overCap++;
        return;
      }
      skipping = false;
    } else if (inList && depth === itemDepth && !closes && token !== TokenType.COLON && items >= options.maxItems) {
      skipping = true;
      overCap = 1;
      if (opens) enter();
      return;
    }
    if (depth === 0 && root === undefined) {
      root = token === TokenType.LEFT_BRACE ? members : token === TokenType.LEFT_BRACKET ? [] : value;
      inList = options.list === undefined && token === TokenType.LEFT_BRACKET;
    }
    // In the root object a key and its value alternate (the parser refuses the body otherwise); `members` has no
    // prototype, so a key such as __proto__ is an own member like any other.
    if (depth === 1 && root === members && isValue) {
      if (key === undefined) {
        key = String(value);
      } else {
        members[key] = opens ? (token === TokenType.LEFT_BRACE ? {} : []) : value;
        inList = key === options.list && token === TokenType.LEFT_BRACKET;
        key = undefined;
      }
    }
    if (isValue) {
      if (inList && depth === itemDepth) heldBeforeItem = held;
      if (++held > MAX_HELD_VALUES) return fail(new JsonWalkError("size", `holds more than ${MAX_HELD_VALUES} values outside its list's items`));
    }
    if (opens) enter();
    else if (closes) depth--;
    if (failure === undefined) parser.write(info);
  };

  parser.onValue = ({ value, parent }) => {
    // `*` matches an object's members too: only the elements of an array are items.
    if (!Array.isArray(parent)) return;
    held = heldBeforeItem;
    items++;
    each(value);
  };

  const tick = pacer(options.signal);
  for (let at = 0; at < bytes.length && failure === undefined; at += CHUNK_BYTES) {
    tokenizer.write(bytes.subarray(at, at + CHUNK_BYTES));
    await tick();
  }
  if (failure === undefined && !tokenizer.isEnded) tokenizer.end();
  if (failure === undefined && !parser.isEnded) fail(notJson());
  if (failure !== undefined) throw failure;
  const hasList = listOf(root, options.list) !== undefined;
  return { root, items: hasList ? items + overCap : 0, overCap };
}

/** Hands at most `maxItems` of the list's items to `each`; throws JsonWalkError, possibly after handing some out. */
export function walkJson(bytes: Buffer, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  const text = bytes.toString("utf8");
  return parsesWhole(text) ? walkJsonParsed(text, options, each) : walkJsonStreamed(bytes, options, each);
}
