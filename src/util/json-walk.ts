// Reads a JSON body's one list (a top-level array, or a list member of a top-level object) in one parse, within bounds:
// items past a cap counted, never kept; the event loop turns every few ms; a dense body streamed; long numbers kept as text.

import { Tokenizer, TokenParser, TokenType } from "@streamparser/json";
import { DOUBLE_DIGITS, significantDigits } from "./decimal.js";

/** Bodies shorter than this (in characters) go to JSON.parse whatever their shape: even a MiB of `{}` parses within a slice of a deadline. */
const STREAM_FROM = 1 << 20;
/**
 * Past STREAM_FROM, a body with more values than this (its `,` `{` `[` bytes) is streamed: JSON.parse's memory
 * and time grow with the values it makes. Real answers, thousands of orders of a few dozen values, stay well below.
 */
const PARSE_MAX_VALUES = 500_000;
/**
 * Values the streaming parser may hold outside the list's finished items (top-level members, the item being read).
 * A body past it is refused: the parser would hold it whole.
 */
export const MAX_HELD_VALUES = 100_000;
/** Streamed bodies are written to the parser this much at a time. */
const CHUNK_BYTES = 64 * 1024;
/** Work between turns of the event loop, in milliseconds. */
const SLICE_MS = 8;
/** Nesting deeper than this is refused while streaming: the parser's stack grows with it. */
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
  /** Items handed to `each`; the rest are counted in `overCap`. */
  maxItems: number;
  /** Checked at every turn of the event loop: once aborted, the walk stops with reason "aborted". */
  signal?: AbortSignal;
}

export interface Walked {
  /** The top-level value; streamed, an object's nested members are empty `{}`/`[]`. Never read the list's items here. */
  root: unknown;
  /** Items the list held, kept or not; 0 when there was no list. */
  items: number;
  /** Items past `maxItems`, counted and dropped. */
  overCap: number;
}

/** A tick that lets the event loop run every SLICE_MS of work, and stops the walk once `signal` is aborted. */
function pacer(signal: AbortSignal | undefined): () => Promise<void> {
  let until = performance.now() + SLICE_MS;
  return async () => {
    if (performance.now() < until) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted === true) throw new JsonWalkError("aborted", "gave up before the body was read");
    until = performance.now() + SLICE_MS;
  };
}

/** A number's source text when a double would not keep it as written (over DOUBLE_DIGITS significant digits). */
const isLong = (text: string): boolean => text.length > DOUBLE_DIGITS && significantDigits(text) > DOUBLE_DIGITS;

/** JSON.parse's reviver: each number's source text is at hand, so a long one is kept exact in the same parse. */
const keepLongNumber = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === "number" && context?.source !== undefined && isLong(context.source) ? context.source : value;

/**
 * Whether the text may hold a number of over DOUBLE_DIGITS significant digits (16 digits or points in a row in a
 * value's place). A reviver costs JSON.parse several times its own work, so a body without one is parsed without it;
 * a false alarm (digits in a string) only costs the reviver. Two patterns, not an alternation with `^`, so the
 * engine scans for the first character class only.
 */
const LONG_NUMBER_IN_VALUE = /[:,[]\s*-?[0-9.]{16}/;
const LONG_NUMBER_AT_START = /^\s*-?[0-9.]{16}/;
const mayHoldLongNumber = (text: string): boolean => LONG_NUMBER_IN_VALUE.test(text) || LONG_NUMBER_AT_START.test(text);

/** Whether JSON.parse can take the body (as text) whole within its time and memory bounds. */
export function parsesWhole(text: string): boolean {
  if (text.length < STREAM_FROM) return true;
  let values = 0;
  // `,` `{` `[`: about one a value. String's indexOf, not Buffer's: a call per mark, and the string's is a builtin.
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

/** The whole-parse walk (walkJson takes it below its size and value bounds; tests compare both ways). */
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

/** A tokenizer that keeps a long number's text, as the parser's documentation suggests, so no digit is lost. */
class ExactTokenizer extends Tokenizer {
  override parseNumber(text: string): number {
    return (isLong(text) ? text : Number(text)) as number;
  }
}

/**
 * The streamed walk (walkJson takes it past its size and value bounds; tests compare both ways). The tokens go to
 * a token parser that emits each list item and forgets it, and are watched here for the depth and, in an object,
 * its top-level members. Held values are bounded by MAX_HELD_VALUES and the depth by MAX_DEPTH, whatever the body.
 */
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
  /** One level deeper; past MAX_DEPTH the walk fails. */
  const enter = (): void => {
    if (++depth > MAX_DEPTH) fail(new JsonWalkError("depth", `nested deeper than ${MAX_DEPTH}`));
  };
  let key: string | undefined;
  let expectKey = false;
  // The list's items stand at depth 1 in a top-level array, at depth 2 in the object's list member.
  const itemDepth = options.list === undefined ? 1 : 2;
  let inList = false;
  // Values (keys included) the parser holds; an item's are let go once it is handed out.
  let held = 0;
  let heldBeforeItem = 0;
  let items = 0;
  // Past the cap the list's tokens are only followed for their nesting and items counted, never handed to the
  // parser (it would build each item to drop it); the list's own `]` goes to it again, ending the list there.
  let skipping = false;
  let overCap = 0;
  tokenizer.onToken = (info) => {
    if (failure !== undefined) return;
    const { token, value } = info;
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    const closes = token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET;
    if (skipping) {
      if (opens) return enter();
      if (!closes || depth > itemDepth) {
        if (closes) depth--;
        else if (token === TokenType.COMMA && depth === itemDepth) overCap++;
        return;
      }
      skipping = false;
    } else if (inList && depth === itemDepth && !closes && token !== TokenType.COLON && items >= options.maxItems) {
      // The cap is reached: this token starts the first item past it, or is the comma before it.
      skipping = true;
      overCap = 1;
      if (opens) enter();
      return;
    }
    if (depth === 0 && root === undefined) {
      root = token === TokenType.LEFT_BRACE ? members : token === TokenType.LEFT_BRACKET ? [] : value;
      inList = options.list === undefined && token === TokenType.LEFT_BRACKET;
    }
    if (depth === 1 && root === members) {
      if (expectKey && token === TokenType.STRING) {
        key = String(value);
        expectKey = false;
      } else if (token === TokenType.COMMA) {
        expectKey = true;
      } else if (key !== undefined && token !== TokenType.COLON && !closes) {
        // `members` has no prototype, so a key such as __proto__ is an own member like any other.
        members[key] = opens ? (token === TokenType.LEFT_BRACE ? {} : []) : value;
        inList = key === options.list && token === TokenType.LEFT_BRACKET;
        key = undefined;
      }
    }
    if (token !== TokenType.COMMA && token !== TokenType.COLON && !closes) {
      if (inList && depth === itemDepth) heldBeforeItem = held;
      if (++held > MAX_HELD_VALUES) return fail(new JsonWalkError("size", `holds more than ${MAX_HELD_VALUES} values outside its list's items`));
    }
    if (opens) {
      if (depth === 0 && token === TokenType.LEFT_BRACE) expectKey = true;
      enter();
      if (failure !== undefined) return;
    } else if (closes) {
      depth--;
    }
    parser.write(info);
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

/**
 * Hands the list's items to `each` (at most `maxItems` of them) and returns the top-level value.
 * Throws JsonWalkError. Items may have been handed out before a later part turns out not to be JSON.
 */
export function walkJson(bytes: Buffer, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  const text = bytes.toString("utf8");
  return parsesWhole(text) ? walkJsonParsed(text, options, each) : walkJsonStreamed(bytes, options, each);
}
