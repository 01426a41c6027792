// A rendered exposition as parts (one per collector), each encoded once and shared by every scrape
// that serves it: as text or OpenMetrics, plain or compressed. A part is compressed as a piece of
// one gzip member (gzip-member.ts), so a scrape whose accounts moved compresses those parts again
// and reuses the rest, and still sends a single member that every gzip decoder reads whole.

import { type Deflated, deflatePiece, inflatePiece } from "./gzip-member.js";
import { ownBytes, ownMemory } from "../util/own-memory.js";
import { redactKnownBytes } from "../util/redact.js";
import { selfToOpenMetrics } from "./openmetrics.js";

export type Format = "text" | "openmetrics";

/** Prometheus text to OpenMetrics: the same lines without the blank ones, and a counter's family named without _total. */
export function familiesToOpenMetrics(text: string): string {
  // Most parts hold gauges only: they skip the line-by-line pass.
  return text.includes(" counter\n") ? selfToOpenMetrics(text) : text.replaceAll("\n\n", "\n");
}

const COUNTER = Buffer.from(" counter\n");
const BLANK_LINE = Buffer.from("\n\n");

/** Whether `familiesToOpenMetrics` leaves `text` as it is: gauges only, no blank line (the renderer writes none). */
function alreadyOpenMetrics(text: Buffer): boolean {
  return !text.includes(COUNTER) && !text.includes(BLANK_LINE) && text[0] !== 10;
}

/** One part's UTF-8 text, encoded once per format and compression. */
export class Part {
  #bytes: Buffer | undefined;
  readonly #plain = new Map<Format, Buffer>();
  readonly #deflated = new Map<Format, Deflated>();
  readonly #openMetrics: (text: string) => string;
  /**
   * The text is OpenMetrics as it is (a part of gauges, as rendered): both formats share one
   * buffer and one compressed piece, so Prometheus's OpenMetrics scrape compresses nothing again.
   */
  readonly sameInBoth: boolean;

  /** `sameInBoth`: known by the caller (gzipped); else found in the text. */
  constructor(bytes: Buffer, openMetrics: (text: string) => string = familiesToOpenMetrics, sameInBoth?: boolean) {
    // The last line of defence: a configured secret the venue echoed into a label value never leaves.
    this.#bytes = ownMemory(redactKnownBytes(bytes));
    this.#openMetrics = openMetrics;
    this.sameInBoth = sameInBoth ?? (openMetrics === familiesToOpenMetrics && alreadyOpenMetrics(this.#bytes));
  }

  /**
   * A part kept compressed only, compressed at once from `text` (which the caller may reuse
   * afterwards): Prometheus always asks for gzip, so the plain text is unpacked (and kept) only
   * when some scraper asks for it.
   */
  static gzipped(text: Buffer): Part {
    const redacted = redactKnownBytes(text);
    const part = new Part(Buffer.alloc(0), familiesToOpenMetrics, alreadyOpenMetrics(redacted));
    part.#bytes = undefined;
    part.#deflated.set("text", deflatePiece(redacted));
    return part;
  }

  /** The part's text as UTF-8. */
  get bytes(): Buffer {
    this.#bytes ??= inflatePiece(this.#deflated.get("text")!);
    return this.#bytes;
  }

  plain(format: Format): Buffer {
    if (format === "text" || this.sameInBoth) return this.bytes;
    let buffer = this.#plain.get(format);
    if (buffer === undefined) {
      buffer = ownBytes(this.#openMetrics(this.bytes.toString("utf8")));
      this.#plain.set(format, buffer);
    }
    return buffer;
  }

  deflated(format: Format): Deflated {
    if (this.sameInBoth) format = "text";
    let piece = this.#deflated.get(format);
    if (piece === undefined) {
      // Prometheus asks for OpenMetrics, gzipped: the texts made on the way there are not kept, or a
      // thousand accounts' parts would each hold three copies of their text besides the one sent.
      piece = deflatePiece(this.#plain.get(format) ?? this.#transientPlain(format));
      this.#deflated.set(format, piece);
    }
    return piece;
  }

  /** The part uncompressed in `format`, without keeping it or the inflated text it is made from. */
  #transientPlain(format: Format): Buffer {
    const text = this.#bytes ?? inflatePiece(this.#deflated.get("text")!);
    return format === "text" ? text : Buffer.from(this.#openMetrics(text.toString("utf8")));
  }
}

export class Body {
  readonly #parts: readonly Part[];
  readonly #plain = new Map<Format, Buffer>();
  #text: string | undefined;

  /**
   * Text (with `openMetrics` turning it into OpenMetrics; gauges only need any blank lines
   * removed), or parts, each a family list ending in a newline, one after the other.
   */
  constructor(text: string | readonly Part[], openMetrics?: (text: string) => string) {
    if (typeof text === "string") {
      // Kept as long as the output is served: memory of its own, not a slice of the shared pool.
      this.#parts = [new Part(ownBytes(text), openMetrics)];
      this.#text = text;
    } else {
      this.#parts = text;
    }
  }

  #sameInBoth(): boolean {
    return this.#parts.every((part) => part.sameInBoth);
  }

  get text(): string {
    this.#text ??= this.plain("text").toString("utf8");
    return this.#text;
  }

  /** The body uncompressed. */
  plain(format: Format): Buffer {
    if (this.#parts.length === 1) return this.#parts[0]!.plain(format);
    if (format === "openmetrics" && this.#sameInBoth()) return this.plain("text");
    let buffer = this.#plain.get(format);
    if (buffer === undefined) {
      buffer = ownMemory(Buffer.concat(this.#parts.map((part) => part.plain(format))));
      this.#plain.set(format, buffer);
    }
    return buffer;
  }

  /**
   * The body as pieces of a gzip member, its parts' own (gzip-member.ts `gzipMember` frames them):
   * what a scrape sends, without a joined copy kept beside the parts for every body served.
   */
  pieces(format: Format): Deflated[] {
    return this.#parts.map((part) => part.deflated(format));
  }
}

/** The end of an OpenMetrics exposition, encoded once. */
export const EOF = new Body("# EOF\n", (text) => text);
