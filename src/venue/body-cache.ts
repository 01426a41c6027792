// Remembers, per request, the last body's bytes and what they were read into: an unchanged body is
// not decoded, parsed or validated again, and keeps its object identity so its metrics text is reused.

import type { RawBody } from "./http.js";
import { STREAM_FROM } from "../util/json-walk.js";

interface Entry {
  /** The body's chunks as they arrived (kept as they are: joining them would copy every answer). */
  body: RawBody;
  value: unknown;
  /** Invalid fields the body had, replayed on every reuse so the counters stay per scrape. */
  invalid: Array<[field: string, count: number]>;
}

/** Compares two bodies byte for byte across their (differently cut) chunks, without joining them. */
function sameBytes(a: RawBody, b: RawBody): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  let j = 0;
  let atA = 0;
  let atB = 0;
  while (i < a.chunks.length && j < b.chunks.length) {
    const x = a.chunks[i]!;
    const y = b.chunks[j]!;
    const n = Math.min(x.byteLength - atA, y.byteLength - atB);
    if (Buffer.compare(x.subarray(atA, atA + n), y.subarray(atB, atB + n)) !== 0) return false;
    atA += n;
    atB += n;
    if (atA === x.byteLength) [i, atA] = [i + 1, 0];
    if (atB === y.byteLength) [j, atB] = [j + 1, 0];
  }
  return true;
}

/**
 * Bodies below this size are joined in one reused buffer, which a parse reads at once; larger ones,
 * which are streamed across turns of the event loop, get a buffer of their own.
 */
const SCRATCH_MAX = STREAM_FROM;
let scratch = Buffer.alloc(0);

/**
 * A changed body to read: its bytes joined, each time they are asked for. Below SCRATCH_MAX they
 * are joined in a reused buffer, so valid only until the reader first awaits.
 */
export interface BodySource {
  readonly bytes: Buffer;
}

function source(body: RawBody): BodySource {
  if (body.length >= SCRATCH_MAX) {
    const own = Buffer.concat(body.chunks, body.length);
    return { bytes: own };
  }
  return {
    get bytes(): Buffer {
      if (scratch.length < body.length) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(body.length, scratch.length * 2)));
      let at = 0;
      for (const chunk of body.chunks) {
        scratch.set(chunk, at);
        at += chunk.byteLength;
      }
      return scratch.subarray(0, at);
    },
  };
}

export class BodyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #enabled: boolean;

  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  /**
   * The value read from the body for `key`: the remembered one when its bytes are unchanged, else
   * `read(source, report)`. `invalid` receives the body's invalid fields either way.
   */
  async read<T>(
    key: string,
    body: RawBody,
    invalid: (field: string, count?: number) => void,
    read: (body: BodySource, report: (field: string, count?: number) => void) => Promise<T>,
  ): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && sameBytes(entry.body, body)) {
      for (const [field, count] of entry.invalid) invalid(field, count);
      return entry.value as T;
    }
    const counts = new Map<string, number>();
    const value = await read(source(body), (field, count = 1) => {
      counts.set(field, (counts.get(field) ?? 0) + count);
      invalid(field, count);
    });
    if (this.#enabled) this.#entries.set(key, { body, value, invalid: [...counts] });
    return value;
  }

  /** Forgets a request whose answer was not a good body, so a later good one is read afresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
