// A finished scrape answer: its Prometheus text, and that text gzipped whole the first time a scraper asks.

import { gzipSync } from "node:zlib";

/** Fast compression: the answer is made again every collection and sent over a LAN. */
export const GZIP_LEVEL = 1;

export class Answer {
  readonly text: string;
  #gzip: Buffer | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** One gzip member of the whole text, which every decoder reads whole (browsers, curl, Python's zlib). */
  get gzip(): Buffer {
    this.#gzip ??= gzipSync(this.text, { level: GZIP_LEVEL });
    return this.#gzip;
  }
}
