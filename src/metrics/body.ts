// A rendered part of the exposition, encoded once and shared by every scrape that serves it:
// as text or OpenMetrics, plain or as a gzip member (gzip members may be concatenated, so a
// scrape sends its small changing part and this cached part as two members of one stream).

import { gzipSync } from "node:zlib";
import { redactKnown } from "../util/redact.js";

export type Format = "text" | "openmetrics";

/** Fast compression: the body is regenerated often and sent over a LAN. */
const GZIP_LEVEL = 1;

/** Prometheus text to OpenMetrics for gauge-only text: the same lines without the blank ones. */
export function gaugesToOpenMetrics(text: string): string {
  return text.replaceAll("\n\n", "\n");
}

export class Body {
  readonly text: string;
  readonly #encoded = new Map<string, Buffer>();
  readonly #openMetrics: (text: string) => string;

  /** `openMetrics` turns the text into OpenMetrics; gauges only need their blank lines removed. */
  constructor(text: string, openMetrics: (text: string) => string = gaugesToOpenMetrics) {
    // The last line of defence: a configured secret the venue echoed into a label value never leaves.
    this.text = redactKnown(text);
    this.#openMetrics = openMetrics;
  }

  encoded(format: Format, gzip: boolean): Buffer {
    const key = `${format}|${gzip}`;
    let buffer = this.#encoded.get(key);
    if (buffer === undefined) {
      const plain = Buffer.from(format === "text" ? this.text : this.#openMetrics(this.text));
      buffer = gzip ? gzipSync(plain, { level: GZIP_LEVEL }) : plain;
      this.#encoded.set(key, buffer);
    }
    return buffer;
  }
}

/** The end of an OpenMetrics exposition, encoded once. */
export const EOF = new Body("# EOF\n", (text) => text);
