// The connection pool to the venue (keep-alive, bounded connections, closed on shutdown) and the fetch ky sends through it.

import { pipeline, type Readable, type Transform } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { Agent } from "undici";
import { VenueError } from "./errors.js";

/** The only content codings asked for, and their decoders; an answer in any other is refused unread. */
const DECODERS = new Map<string, () => Transform>([
  ["gzip", createGunzip],
  ["x-gzip", createGunzip],
  ["deflate", createInflate],
  ["br", createBrotliDecompress],
]);

/** Stops reading a body; undici then reports the abort as an error event, which is expected here. */
function discard(stream: Readable): void {
  stream.on("error", () => undefined);
  stream.destroy();
}

/** The body arrived but was not what its coding says, or was cut short. */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
}

/** The venue answered a status past 599, which no Response can carry; judged by its number, as any failed status. */
export class StatusError extends Error {
  override readonly name = "StatusError";

  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}

/** A success with its body read whole: the Response itself carries none, so the bytes go to the parser as they are. */
export class VenueAnswer extends Response {
  constructor(
    readonly decoded: Buffer,
    init: ResponseInit,
  ) {
    super(null, init);
  }
}

/**
 * The body decoded and read under `maxBytes` decoded bytes, so a gzip bomb stops there; leaving early
 * destroys the streams, which stops the transfer. zlib ends strictly, so a body cut short is a DecodeError
 * (fetch's lenient decoder would pass it as a shorter body); a failure of the raw body (a reset) stays its own.
 */
async function readBody(raw: Readable, coding: string, maxBytes: number, where: string): Promise<Buffer> {
  const decoder = DECODERS.get(coding);
  let failed: "raw" | "decoder" | undefined;
  let source = raw;
  if (decoder !== undefined) {
    raw.on("error", () => {
      failed ??= "raw";
    });
    const decoding = decoder().on("error", () => {
      failed ??= "decoder";
    });
    source = pipeline(raw, decoding, () => undefined) as Readable;
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      length += chunk.byteLength;
      if (length > maxBytes) throw new VenueError("too_large", `${where}: body over the ${maxBytes} byte limit`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (failed === "decoder") throw new DecodeError(`the ${coding} body could not be decoded`);
    throw error;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

export class Transport {
  readonly dispatcher: Agent;
  readonly #onWait: () => void;

  /** `maxConnections` per origin bounds the requests in flight to it; `onWait` hears of each request that found them all busy. */
  constructor(maxConnections: number, onWait: () => void = () => undefined) {
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: maxConnections, connect: { timeout: 10_000 } });
    this.#onWait = onWait;
  }

  /** ky's fetch over the pool: redirects never followed, a failure's body never read, a success's body decoded and read under `maxBodyBytes`. */
  readonly fetch = async (input: Parameters<typeof fetch>[0], init: RequestInit | undefined, maxBodyBytes: number): Promise<Response> => {
    const asked = input instanceof Request ? input : new Request(input, init);
    const url = new URL(asked.url);
    const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br" };
    asked.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const answering = this.dispatcher.request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers, signal: asked.signal });
    // undici dispatches at once: a request queued in the origin's pool now found every connection busy.
    if (((this.dispatcher.stats[url.origin] as { queued?: number } | undefined)?.queued ?? 0) > 0) this.#onWait();
    const answer = await answering;
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(answer.headers)) {
      const text = headerValue(value);
      if (text !== undefined && key !== "content-encoding" && key !== "content-length") responseHeaders.set(key, text);
    }
    const status = answer.statusCode;
    if (status < 200 || status >= 300 || status === 204 || status === 205) {
      discard(answer.body);
      if (status > 599) throw new StatusError(status);
      return new Response(null, { status, headers: responseHeaders });
    }
    const coding = headerValue(answer.headers["content-encoding"])?.trim().toLowerCase() ?? "";
    if (coding !== "" && coding !== "identity" && !DECODERS.has(coding)) {
      discard(answer.body);
      throw new VenueError("invalid_encoding", `GET ${url.pathname}: body sent in an encoding that was not asked for`);
    }
    return new VenueAnswer(await readBody(answer.body, coding, maxBodyBytes, `GET ${url.pathname}`), { status, headers: responseHeaders });
  };

  async close(graceMs = 5_000): Promise<void> {
    const late = delay(graceMs, "late" as const, { ref: false });
    if ((await Promise.race([this.dispatcher.close(), late])) === "late") await this.dispatcher.destroy();
  }
}
