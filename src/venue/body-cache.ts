// Remembers, per request, the last body's digest and what it was read into: an unchanged body is
// not decoded, parsed or validated again, and keeps its object identity so its metrics text is reused.

import { createHash } from "node:crypto";
import type { RawBody } from "./http.js";
import { STREAM_FROM } from "../util/json-walk.js";

interface Entry {
  /**
   * The body's length and SHA-256, not its bytes: with a thousand accounts on a moving venue the bytes
   * kept were most of the process (and their chunks could pin larger socket buffers), for bodies that
   * are rarely the same twice.
   */
  length: number;
  digest: Buffer;
  value: unknown;
  /** Invalid fields the body had, replayed on every reuse so the counters stay per scrape. */
  invalid: Array<[field: string, count: number]>;
}

/** The body's SHA-256 across its chunks as they arrived, without joining them. */
function digestOf(body: RawBody): Buffer {
  const hash = createHash("sha256");
  for (const chunk of body.chunks) hash.update(chunk);
  return hash.digest();
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
    const digest = this.#enabled ? digestOf(body) : undefined;
    if (entry !== undefined && digest !== undefined && entry.length === body.length && entry.digest.equals(digest)) {
      for (const [field, count] of entry.invalid) invalid(field, count);
      return entry.value as T;
    }
    const counts = new Map<string, number>();
    const value = await read(source(body), (field, count = 1) => {
      counts.set(field, (counts.get(field) ?? 0) + count);
      invalid(field, count);
    });
    if (digest !== undefined) this.#entries.set(key, { length: body.length, digest, value, invalid: [...counts] });
    return value;
  }

  /** Forgets a request whose answer was not a good body, so a later good one is read afresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
