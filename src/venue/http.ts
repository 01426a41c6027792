// One GET to the venue with ky: at most one retry, no redirects, the body read under its byte cap, every failure a VenueError.

import ky, { isHTTPError } from "ky";
import { VenueError, reasonForStatus } from "./errors.js";
import { parseRetryAfter } from "./retry-after.js";
import { DecodeError } from "./transport.js";

export interface GetOptions {
  url: URL;
  headers: Headers;
  /** The scrape's deadline: it bounds the request, its retry and the body alike. */
  signal: AbortSignal;
  /** Milliseconds left before the deadline: a retry is made only if its backoff and RETRY_MIN_REMAINING_MS fit. */
  remainingMs: () => number;
  /** Largest decoded body accepted, in bytes (a gzip bomb stops here too). */
  maxBodyBytes: number;
  /** Longest Retry-After honoured, in seconds. */
  maxRetryAfterSeconds: number;
  /** The connection pool's fetch (transport.ts). */
  fetch: typeof fetch;
  /** The history pager's request budget: every attempt spends one, and no retry is made without one left. */
  budget?: { left: number };
  /** Each attempt's outcome: the HTTP status, or the failure reason when none came back, and its duration. */
  onAttempt?: (result: { code: string; reason: string | undefined; durationMs: number }) => void;
}

/** A retry is only worth it when it can finish: this much time must be left after the backoff. */
const RETRY_MIN_REMAINING_MS = 500;

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/;

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
  if (isHTTPError(error)) {
    const status = error.response.status;
    const reason = reasonForStatus(status);
    const retryAfterSeconds =
      reason === "rate_limited" ? parseRetryAfter(error.response.headers.get("retry-after"), Date.now(), options.maxRetryAfterSeconds) : undefined;
    const message = reason === "redirect" ? `${where}: answered ${status}, a redirect, which is never followed` : `${where}: HTTP ${status}`;
    return new VenueError(reason, message, retryAfterSeconds, status);
  }
  if (options.signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))) {
    return new VenueError("timeout", `${where}: no complete answer before the scrape deadline`);
  }
  if (error instanceof DecodeError) return new VenueError("invalid_encoding", `${where}: ${error.message} (corrupt or cut short)`);
  const code = errorCode(error);
  if (code !== undefined && TLS_CODES.test(code)) return new VenueError("tls", `${where}: TLS failure (${code})`);
  return new VenueError("network", `${where}: connection failed (${code ?? "no error code"})`);
}

/** The response's body, read to its end or to `maxBytes` decoded bytes, whichever comes first. */
async function readCapped(response: Response, maxBytes: number, where: string): Promise<Buffer> {
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) throw new VenueError("too_large", `${where}: body over the ${maxBytes} byte limit`);
      chunks.push(value);
    }
  } catch (error) {
    void reader.cancel().catch(() => undefined);
    throw error;
  }
  return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, length) : Buffer.concat(chunks, length);
}

/**
 * GETs `url` and returns its decoded body, or throws a VenueError. ky retries once, network errors
 * and 5xx only (never a 429: Retry-After is reported to the caller, up to its maximum), after a
 * jittered 50-250 ms backoff, and only while the backoff and RETRY_MIN_REMAINING_MS fit before the
 * deadline and the budget has a request left. ky's own timeout stays off: the deadline's signal bounds
 * the request, the retry and the body read alike.
 */
export async function getBody(options: GetOptions): Promise<Buffer> {
  const where = `GET ${options.url.pathname}`;
  let backoffMs = 0;
  let response: Response;
  try {
    response = await ky.get(options.url, {
      headers: options.headers,
      signal: options.signal,
      timeout: false,
      redirect: "manual",
      retry: {
        limit: 1,
        shouldRetry: ({ error }) => {
          const reason = classify(error, where, options).reason;
          if (reason !== "network" && reason !== "http_5xx") return false;
          if (options.budget !== undefined && options.budget.left <= 0) return false;
          backoffMs = 50 + Math.random() * 200;
          return options.remainingMs() >= backoffMs + RETRY_MIN_REMAINING_MS;
        },
        delay: () => backoffMs,
      },
      fetch: async (input, init) => {
        if (options.budget !== undefined) options.budget.left--;
        const started = performance.now();
        try {
          const answer = await options.fetch(input, init);
          options.onAttempt?.({ code: String(answer.status), reason: undefined, durationMs: performance.now() - started });
          return answer;
        } catch (error) {
          options.onAttempt?.({ code: "error", reason: classify(error, where, options).reason, durationMs: performance.now() - started });
          throw error;
        }
      },
    });
    return await readCapped(response, options.maxBodyBytes, where);
  } catch (error) {
    throw classify(error, where, options);
  }
}
