// A fetch for ky that reads the venue's answer through undici's pool directly, with Node streams:
// decoded and size-capped as it arrives, its chunks kept beside the Response ky gets. Node's fetch reads a
// body through WHATWG streams, one promise per chunk, which on a 3 MB answer cost more CPU than
// everything else the exporter does with it and left most of a scrape's garbage.

import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable, Transform } from "node:stream";
import { VenueError } from "./errors.js";
import type { PoolRequest } from "./transport.js";

function decoderFor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Stops reading a body; undici then reports the abort as an error event, which is expected here. */
function discard(stream: Readable | Transform): void {
  stream.on("error", () => undefined);
  stream.destroy();
}

/** A body as it arrived: its chunks, not yet joined or decoded (an unchanged body never is). */
export interface RawBody {
  chunks: Uint8Array[];
  length: number;
}

/**
 * The chunks read for a Response this fetch made. The Response handed to ky has no body of its
 * own: copying 30 MB into it, and out again through a web stream, blocked the event loop for
 * tens of milliseconds, and nothing needs it as a stream.
 */
const bodies = new WeakMap<Response, RawBody>();

/** The body read for `response` by poolFetch, or undefined for any other Response. */
export function pooledBody(response: Response): RawBody | undefined {
  return bodies.get(response);
}

async function readDecoded(body: Readable, encoding: string | undefined, maxBytes: number, where: string): Promise<RawBody> {
  const coding = encoding?.trim().toLowerCase() ?? "";
  const decoder = decoderFor(coding);
  if (decoder === undefined && coding !== "" && coding !== "identity") {
    discard(body);
    throw new VenueError("invalid_encoding", `${where}: body sent in an encoding that was not asked for`);
  }
  // An error of the raw body (a reset mid-answer) must end the decoded side too, not go unhandled;
  // it stays a transport failure, while an error of the decoder alone means the bytes were bad.
  let bodyFailed = false;
  if (decoder !== undefined) {
    body.on("error", (error) => {
      bodyFailed = true;
      decoder.destroy(error);
    });
  }
  const source: Readable = decoder === undefined ? body : body.pipe(decoder);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > maxBytes) throw new VenueError("too_large", `${where}: body over the ${maxBytes} byte limit`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (decoder === undefined || bodyFailed || error instanceof VenueError) throw error;
    throw new VenueError("invalid_encoding", `${where}: the ${coding} body could not be decoded (corrupt or cut short)`);
  } finally {
    if (!body.readableEnded || length > maxBytes) {
      discard(body);
      if (decoder !== undefined) discard(decoder);
    }
  }
  return { chunks, length };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/** A fetch-compatible function over the pool's request() that never follows redirects and caps decoded bodies. */
export function poolFetch(request: PoolRequest, maxBodyBytes: number): typeof fetch {
  return async (input, init) => {
    const asked = input instanceof Request ? input : new Request(input, init);
    const url = new URL(asked.url);
    const headers: Record<string, string> = { "accept-encoding": "gzip, deflate, br" };
    asked.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const answer = await request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "GET",
      headers,
      signal: asked.signal,
    });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(answer.headers)) {
      const text = headerValue(value);
      if (text !== undefined && key !== "content-encoding" && key !== "content-length") responseHeaders.set(key, text);
    }
    const status = answer.statusCode;
    if (status < 200 || status >= 300 || status === 204) {
      // Failures are judged by status alone: the body is not read.
      discard(answer.body);
      return new Response(null, { status, headers: responseHeaders });
    }
    const where = `GET ${url.pathname}`;
    const body = await readDecoded(answer.body, headerValue(answer.headers["content-encoding"]), maxBodyBytes, where);
    const response = new Response(null, { status, headers: responseHeaders });
    bodies.set(response, body);
    return response;
  };
}
