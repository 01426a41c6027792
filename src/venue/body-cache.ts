// Remembers, per request, the last body's bytes and what they were read into: an unchanged body is
// not decoded, parsed or validated again, and keeps its object identity so its metrics text is reused.

import type { RawBody } from "./http.js";

interface Entry {
  bytes: Buffer;
  value: unknown;
  /** Invalid fields the body had, replayed on every reuse so the counters stay per scrape. */
  invalid: Array<[field: string, count: number]>;
}

/** Compares the chunks as they arrived with the remembered bytes, without joining or decoding them. */
function sameBytes(bytes: Buffer, body: RawBody): boolean {
  if (bytes.length !== body.length) return false;
  let offset = 0;
  for (const chunk of body.chunks) {
    if (Buffer.compare(chunk, bytes.subarray(offset, offset + chunk.byteLength)) !== 0) return false;
    offset += chunk.byteLength;
  }
  return true;
}

export class BodyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #enabled: boolean;

  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  /**
   * The value read from `text` for `key`: the remembered one when the text is unchanged, else
   * `read(text, report)`. `invalid` receives the body's invalid fields either way.
   */
  async read<T>(
    key: string,
    body: RawBody,
    invalid: (field: string) => void,
    read: (text: string, report: (field: string) => void) => Promise<T>,
  ): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && sameBytes(entry.bytes, body)) {
      for (const [field, count] of entry.invalid) for (let i = 0; i < count; i++) invalid(field);
      return entry.value as T;
    }
    const counts = new Map<string, number>();
    // Joined once: decoded for the parser and kept for the next comparison.
    const bytes = Buffer.concat(body.chunks, body.length);
    const value = await read(bytes.toString("utf8"), (field) => {
      counts.set(field, (counts.get(field) ?? 0) + 1);
      invalid(field);
    });
    if (this.#enabled) this.#entries.set(key, { bytes, value, invalid: [...counts] });
    return value;
  }

  /** Forgets a request whose answer was not a good body, so a later good one is read afresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
