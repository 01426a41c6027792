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

/** Whether the text may hold a number of over DOUBLE_DIGITS digits (a run of LONG_RUN digits and dots where a value
 * starts); only then does JSON.parse get the reviver. Every such run covers one position in LONG_RUN, so only those are read:
 * a linear pattern at every delimiter cost bench:ab's large profile 1.05x CPU (same run). */
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

/** The state of one streamed walk: the tokenizer's tokens are counted and bounded here, then handed to the parser. */
class StreamedWalk {
  readonly tokenizer = new ExactTokenizer({ stringBufferSize: 64 * 1024, numberBufferSize: 64 });
  readonly parser: TokenParser;
  failure: JsonWalkError | undefined;
  root: unknown;
  /** No prototype, so a key such as __proto__ is an own member like any other. */
  readonly members: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  #depth = 0;
  #key: string | undefined;
  readonly #itemDepth: number;
  #inList = false;
  #held = 0;
  #heldBeforeItem = 0;
  items = 0;
  /** Past the cap the list's tokens are only counted, never handed to the parser, which would build each item to drop it. */
  #skipping = false;
  overCap = 0;

  constructor(
    readonly options: WalkOptions,
    each: (item: unknown) => void,
  ) {
    this.#itemDepth = options.list === undefined ? 1 : 2;
    this.parser = new TokenParser({ paths: [options.list === undefined ? "$.*" : `$.${options.list}.*`], keepStack: false });
    this.tokenizer.onError = () => this.fail(notJson());
    this.parser.onError = () => this.fail(notJson());
    this.tokenizer.onToken = (info) => this.#token(info);
    this.parser.onValue = ({ value, parent }) => {
      // `*` matches an object's members too: only the elements of an array are items.
      if (!Array.isArray(parent)) return;
      this.#held = this.#heldBeforeItem;
      this.items++;
      each(value);
    };
  }

  fail(error: JsonWalkError): void {
    this.failure ??= error;
  }

  #enter(): void {
    if (++this.#depth > MAX_DEPTH) this.fail(new JsonWalkError("depth", `nested deeper than ${MAX_DEPTH}`));
  }

  /** Whether the token is one of the items past the cap, counted and dropped. */
  #skipped(token: TokenType, opens: boolean, closes: boolean): boolean {
    if (this.#skipping) {
      if (opens) this.#enter();
      else if (closes && this.#depth <= this.#itemDepth) this.#skipping = false;
      else if (closes) this.#depth--;
      else if (token === TokenType.COMMA && this.#depth === this.#itemDepth) this.overCap++;
      return this.#skipping;
    }
    if (!this.#inList || this.#depth !== this.#itemDepth || closes || token === TokenType.COLON || this.items < this.options.maxItems) return false;
    this.#skipping = true;
    this.overCap = 1;
    if (opens) this.#enter();
    return true;
  }

  #token(info: Parameters<NonNullable<Tokenizer["onToken"]>>[0]): void {
    if (this.failure !== undefined) return;
    const { token, value } = info;
    const opens = token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET;
    const closes = token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET;
    const isValue = token !== TokenType.COMMA && token !== TokenType.COLON && !closes;
    if (this.#skipped(token, opens, closes)) return;
    if (this.#depth === 0 && this.root === undefined) {
      this.root = token === TokenType.LEFT_BRACE ? this.members : token === TokenType.LEFT_BRACKET ? [] : value;
      this.#inList = this.options.list === undefined && token === TokenType.LEFT_BRACKET;
    }
    // In the root object a key and its value alternate (the parser refuses the body otherwise).
    if (this.#depth === 1 && this.root === this.members && isValue) {
      if (this.#key === undefined) {
        this.#key = String(value);
      } else {
        this.members[this.#key] = opens ? (token === TokenType.LEFT_BRACE ? {} : []) : value;
        this.#inList = this.#key === this.options.list && token === TokenType.LEFT_BRACKET;
        this.#key = undefined;
      }
    }
    if (isValue) {
      if (this.#inList && this.#depth === this.#itemDepth) this.#heldBeforeItem = this.#held;
      if (++this.#held > MAX_HELD_VALUES) return this.fail(new JsonWalkError("size", `holds more than ${MAX_HELD_VALUES} values outside its list's items`));
    }
    if (opens) this.#enter();
    else if (closes) this.#depth--;
    if (this.failure === undefined) this.parser.write(info);
  }
}

/** The streamed walk: each list item is emitted and forgotten; held values and depth stay bounded whatever the body. */
export async function walkJsonStreamed(bytes: Buffer, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  const walk = new StreamedWalk(options, each);
  const tick = pacer(options.signal);
  for (let at = 0; at < bytes.length && walk.failure === undefined; at += CHUNK_BYTES) {
    walk.tokenizer.write(bytes.subarray(at, at + CHUNK_BYTES));
    await tick();
  }
  if (walk.failure === undefined && !walk.tokenizer.isEnded) walk.tokenizer.end();
  if (walk.failure === undefined && !walk.parser.isEnded) walk.fail(notJson());
  if (walk.failure !== undefined) throw walk.failure;
  return { root: walk.root, items: listOf(walk.root, options.list) === undefined ? 0 : walk.items + walk.overCap, overCap: walk.overCap };
}

/** Hands at most `maxItems` of the list's items to `each`; throws JsonWalkError, possibly after handing some out. */
export function walkJson(bytes: Buffer, options: WalkOptions, each: (item: unknown) => void): Promise<Walked> {
  const text = bytes.toString("utf8");
  return parsesWhole(text) ? walkJsonParsed(text, options, each) : walkJsonStreamed(bytes, options, each);
}
