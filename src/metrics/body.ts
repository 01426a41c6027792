// A rendered exposition as parts (one per collector), each encoded once and shared by every scrape
// that serves it: as text or OpenMetrics, plain or as a gzip member. Gzip members may be
// concatenated, so a scrape whose accounts moved re-encodes those parts and reuses the rest.

import { gunzipSync, gzipSync } from "node:zlib";
import { redactKnownBytes } from "../util/redact.js";

export type Format = "text" | "openmetrics";

/** Fast compression: the body is regenerated often and sent over a LAN. */
const GZIP_LEVEL = 1;

/** Prometheus text to OpenMetrics for gauge-only text: the same lines without the blank ones. */
export function gaugesToOpenMetrics(text: string): string {
  return text.replaceAll("\n\n", "\n");
}

/** One part's UTF-8 text, encoded once per format and compression. */
export class Part {
  #bytes: Buffer | undefined;
  readonly #encoded = new Map<string, Buffer>();
  readonly #openMetrics: (text: string) => string;

  constructor(bytes: Buffer, openMetrics: (text: string) => string = gaugesToOpenMetrics) {
    // The last line of defence: a configured secret the venue echoed into a label value never leaves.
    this.#bytes = redactKnownBytes(bytes);
    this.#openMetrics = openMetrics;
  }

  /**
   * A part kept as its gzip member only, compressed at once from `text` (which the caller may
   * reuse afterwards): Prometheus always asks for gzip, so the plain text is unpacked (and kept)
   * only when some scraper asks for it.
   */
  static gzipped(text: Buffer): Part {
    const part = new Part(Buffer.alloc(0));
    part.#bytes = undefined;
    part.#encoded.set("t1", gzipSync(redactKnownBytes(text), { level: GZIP_LEVEL }));
    return part;
  }

  /** The part's text as UTF-8. */
  get bytes(): Buffer {
    this.#bytes ??= gunzipSync(this.#encoded.get("t1")!);
    return this.#bytes;
  }

  encoded(format: Format, gzip: boolean): Buffer {
    const key = format === "text" ? (gzip ? "t1" : "t0") : gzip ? "o1" : "o0";
    let buffer = this.#encoded.get(key);
    if (buffer === undefined) {
      const plain = format === "text" ? this.bytes : Buffer.from(this.#openMetrics(this.bytes.toString("utf8")));
      buffer = gzip ? gzipSync(plain, { level: GZIP_LEVEL }) : plain;
      this.#encoded.set(key, buffer);
    }
    return buffer;
  }
}

/** The blank line between two parts of a text exposition (OpenMetrics has none). */
const SEPARATOR = new Part(Buffer.from("\n"), () => "");

export class Body {
  readonly #parts: readonly Part[];
  readonly #encoded = new Map<string, Buffer>();
  #text: string | undefined;

  /**
   * Text (with `openMetrics` turning it into OpenMetrics; gauges only need their blank lines
   * removed), or parts, each a family list ending in a newline, separated by a blank line.
   */
  constructor(text: string | readonly Part[], openMetrics?: (text: string) => string) {
    if (typeof text === "string") {
      this.#parts = [new Part(Buffer.from(text), openMetrics)];
      this.#text = text;
    } else {
      this.#parts = text.flatMap((part, i) => (i === 0 ? [part] : [SEPARATOR, part]));
    }
  }

  get text(): string {
    this.#text ??= this.encoded("text", false).toString("utf8");
    return this.#text;
  }

  encoded(format: Format, gzip: boolean): Buffer {
    if (this.#parts.length === 1) return this.#parts[0]!.encoded(format, gzip);
    const key = `${format}|${gzip}`;
    let buffer = this.#encoded.get(key);
    if (buffer === undefined) {
      buffer = Buffer.concat(this.#parts.map((part) => part.encoded(format, gzip)));
      this.#encoded.set(key, buffer);
    }
    return buffer;
  }
}

/** The end of an OpenMetrics exposition, encoded once. */
export const EOF = new Body("# EOF\n", (text) => text);
