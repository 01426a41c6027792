// A finished scrape answer: its Prometheus text, and that text gzipped whole the first time a scraper asks.

import { gunzipSync, gzipSync } from "node:zlib";

/** Fast compression: the answer is made again every collection and sent over a LAN. */
export const GZIP_LEVEL = 1;

/**
 * Once compressed, an answer keeps its gzip alone: a thousand probe answers kept until their next
 * collection would otherwise hold their text too, ten times the size. A scraper that asks for plain
 * text (a person with curl, not Prometheus) then gets it unpacked.
 */
export class Answer {
  #text: string | undefined;
  #gzip: Buffer | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  get text(): string {
    return this.#text ?? gunzipSync(this.#gzip!).toString("utf8");
  }

  /** One gzip member of the whole text, which every decoder reads whole (browsers, curl, Python's zlib). */
  get gzip(): Buffer {
    if (this.#gzip === undefined) {
      const gzip = gzipSync(this.#text!, { level: GZIP_LEVEL });
      // Under half of Node's buffer pool, the result is a slice of a shared slab that one kept slice
      // holds whole: a kept answer gets memory of its own size.
      this.#gzip = gzip.byteLength === gzip.buffer.byteLength ? gzip : Buffer.from(new Uint8Array(gzip).buffer);
      this.#text = undefined;
    }
    return this.#gzip;
  }
}
