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

/** zlib ends strictly, so a body cut short is a DecodeError (fetch's lenient decoder would pass it as a shorter body). */
async function* decoded(raw: Readable, coding: string): AsyncGenerator<Uint8Array> {
  const decoder = DECODERS.get(coding);
  if (decoder === undefined) {
    yield* raw as AsyncIterable<Uint8Array>;
    return;
  }
  let failed: "raw" | "decoder" | undefined;
  raw.on("error", () => {
    failed ??= "raw";
  });
  const decoding = decoder().on("error", () => {
    failed ??= "decoder";
  });
  const out = pipeline(raw, decoding, () => undefined) as Readable;
  try {
    yield* out as AsyncIterable<Uint8Array>;
  } catch (error) {
    if (failed !== "decoder") throw error;
    throw new DecodeError(`the ${coding} body could not be decoded`);
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

export class Transport {
  readonly dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    // A burst of scrapes shares one collection per account, so few connections per origin suffice.
    connections: 16,
    connect: { timeout: 10_000 },
  });

  /** ky's fetch over the pool: redirects never followed, a failure's body never read, a success's body decoded as it streams. */
  readonly fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const asked = input instanceof Request ? input : new Request(input, init);
    const url = new URL(asked.url);
    const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br" };
    asked.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const answer = await this.dispatcher.request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers, signal: asked.signal });
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
    return new Response(ReadableStream.from(decoded(answer.body, coding)), { status, headers: responseHeaders });
  };

  async close(graceMs = 5_000): Promise<void> {
    const late = delay(graceMs, "late" as const, { ref: false });
    if ((await Promise.race([this.dispatcher.close(), late])) === "late") await this.dispatcher.destroy();
  }
}
