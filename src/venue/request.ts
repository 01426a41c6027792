// One GET to the venue, top to bottom: the connection pool, ky's one retry, the status → reason mapping with
// Retry-After, and the body decoded under its byte cap. Every failure is a VenueError (errors.ts) in our words.

import { pipeline, type Readable, type Transform } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import ky from "ky";
import { Agent } from "undici";
import { type FailureReason, VenueError } from "./errors.js";
import type { RequestPace } from "./request-pace.js";

/** The connection pool to the venue: keep-alive, `maxConnections` per origin, `onWait` told of each request that waits for one. */
export class VenuePool {
  readonly agent: Agent;
  /** Our requests in flight: only one past the pool's size can have found every connection busy. */
  inFlight = 0;

  constructor(
    readonly maxConnections: number,
    readonly onWait: () => void = () => undefined,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: maxConnections, connect: { timeout: 10_000 } });
  }

  async close(graceMs = 5_000): Promise<void> {
    const late = delay(graceMs, "late" as const, { ref: false });
    if ((await Promise.race([this.agent.close(), late])) === "late") await this.agent.destroy();
  }
}

export interface GetOptions {
  url: URL;
  headers: Headers;
  /** The scrape's deadline: it bounds the request, its retry and the body read alike. */
  signal: AbortSignal;
  remainingMs: () => number;
  /** Counted in decoded bytes, so a gzip bomb stops here too. */
  maxBodyBytes: number;
  maxRetryAfterSeconds: number;
  pool: VenuePool;
  /** The history read's requests left: its first attempt is spent by the caller, a retry spends one more. */
  budget?: { left: number };
  /** The venue's request budget per second (venue.max_requests_per_second), taken before every attempt. */
  pace?: RequestPace;
  onAttempt?: (result: { code: string; reason: FailureReason | undefined; durationMs: number }) => void;
}

/** A retry is only worth it when it can finish: this much time must be left after the backoff. */
const RETRY_MIN_REMAINING_MS = 500;

/** `url`'s decoded body, or a VenueError; one retry (network or 5xx, never a 429) only if it fits before the deadline and the budget. */
export async function getBody(options: GetOptions): Promise<Buffer> {
  const where = `GET ${options.url.pathname}`;
  let backoffMs = 0;
  let body: Buffer = Buffer.alloc(0);
  try {
    await ky.get(options.url, {
      headers: options.headers,
      signal: options.signal,
      timeout: false,
      retry: {
        limit: 1,
        shouldRetry: ({ error }) => {
          const reason = error instanceof VenueError ? error.reason : undefined;
          if (reason !== "network" && reason !== "http_5xx") return false;
          if (options.budget !== undefined && options.budget.left <= 0) return false;
          backoffMs = 50 + Math.random() * 200;
          if (options.remainingMs() < backoffMs + RETRY_MIN_REMAINING_MS) return false;
          if (options.budget !== undefined) options.budget.left--;
          return true;
        },
        delay: () => backoffMs,
      },
      // Each attempt: a status other than 2xx throws, so ky only ever sees a success, whose body is already read.
      fetch: async (request) => {
        await options.pace?.take(options.signal);
        const started = performance.now();
        try {
          const answer = await attempt(request as Request, options, where);
          body = answer.body;
          options.onAttempt?.({ code: String(answer.status), reason: undefined, durationMs: performance.now() - started });
          return new Response(null, { status: answer.status });
        } catch (error) {
          const failure = classify(error, where, options);
          // A status the venue answered is the attempt's result; a failure without one is told by its reason.
          const [code, reason] = failure.httpStatus === undefined ? ["error", failure.reason] : [String(failure.httpStatus), undefined];
          options.onAttempt?.({ code, reason, durationMs: performance.now() - started });
          throw failure;
        }
      },
    });
    return body;
  } catch (error) {
    throw classify(error, where, options);
  }
}

/** The only content codings asked for, and their decoders; an answer in any other is refused unread. */
const DECODERS = new Map<string, () => Transform>([
  ["gzip", createGunzip],
  ["x-gzip", createGunzip],
  ["deflate", createInflate],
  ["br", createBrotliDecompress],
]);

/** One request over the pool: redirects never followed, a failure's body never read, a success's read whole. */
async function attempt(request: Request, options: GetOptions, where: string): Promise<{ status: number; body: Buffer }> {
  const url = new URL(request.url);
  const headers = { "accept-encoding": "gzip, deflate, br", ...Object.fromEntries(request.headers) };
  const { pool } = options;
  pool.inFlight++;
  const answering = pool.agent.request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers, signal: request.signal });
  // undici dispatches at once: a request queued in the origin's pool now found every connection busy. Only one past
  // the pool's size can be, so undici's stats (every connection walked, per origin) are read only then.
  if (pool.inFlight > pool.maxConnections && ((pool.agent.stats[url.origin] as { queued?: number } | undefined)?.queued ?? 0) > 0) pool.onWait();
  const answer = await answering.catch((error: unknown) => {
    pool.inFlight--;
    throw error;
  });
  // In flight until its body closes (read or destroyed): its connection is free then.
  answer.body.once("close", () => pool.inFlight--);
  const status = answer.statusCode;
  if (status < 200 || status >= 300) {
    discard(answer.body);
    throw statusFailure(status, headerValue(answer.headers["retry-after"]), where, options);
  }
  const coding = headerValue(answer.headers["content-encoding"])?.trim().toLowerCase() ?? "";
  if (coding !== "" && coding !== "identity" && !DECODERS.has(coding)) {
    discard(answer.body);
    throw new VenueError("invalid_encoding", `${where}: body sent in an encoding that was not asked for`);
  }
  return { status, body: await readBody(answer.body, coding, options.maxBodyBytes, where) };
}

/** A status past 599, of no class, counts as the server's fault (a 5xx). */
function statusFailure(status: number, retryAfter: string | undefined, where: string, options: GetOptions): VenueError {
  if (status >= 300 && status < 400) return new VenueError("redirect", `${where}: answered ${status}, a redirect, which is never followed`, undefined, status);
  const message = `${where}: HTTP ${status}`;
  if (status === 429 || status === 418) return new VenueError("rate_limited", message, parseRetryAfter(retryAfter, options.maxRetryAfterSeconds), status);
  return new VenueError(status === 401 || status === 403 ? "auth" : status >= 500 ? "http_5xx" : "http_4xx", message, undefined, status);
}

/** Seconds to wait from now (delta seconds or an HTTP date), capped at `capSeconds`; undefined when the header says nothing usable. */
function parseRetryAfter(header: string | undefined, capSeconds: number): number | undefined {
  const text = header?.trim() ?? "";
  if (/^\d+$/.test(text)) return Math.min(Number(text), capSeconds);
  if (text.length === 0 || text.length > 64) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, (at - Date.now()) / 1000), capSeconds);
}

/** The body under `maxBytes` decoded bytes, so a gzip bomb stops there; zlib ends strictly: a body cut short is an error, not a shorter body. */
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
    if (failed === "decoder") throw new VenueError("invalid_encoding", `${where}: the ${coding} body could not be decoded (corrupt or cut short)`);
    throw error;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

/** Stops reading a body; undici then reports the abort as an error event, which is expected here. */
function discard(stream: Readable): void {
  stream.on("error", () => undefined);
  stream.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/;

/** A connection's failure in words, by Node's or undici's code: what a person on call reads on the page and in the log. */
const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "the host name could not be looked up",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the venue",
};

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    // A code is shown in messages: only a plain identifier, never a library's free text.
    if (typeof code === "string") return /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : undefined;
    current = current.cause;
  }
  return undefined;
}

/** What a thrown error means, in our own words: never a library's message, a header or the query. */
function classify(error: unknown, where: string, options: GetOptions): VenueError {
  if (error instanceof VenueError) return error;
  if (options.signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))) {
    return new VenueError("timeout", `${where}: no complete answer before the scrape deadline`);
  }
  const code = errorCode(error);
  if (code !== undefined && TLS_CODES.test(code)) return new VenueError("tls", `${where}: TLS failure (${code})`);
  const words = (code === undefined ? undefined : NETWORK_WORDS[code]) ?? "connection failed";
  return new VenueError("network", `${where}: ${words} (${code ?? "no error code"})`);
}
