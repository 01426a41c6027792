// One GET to the venue with ky: at most one retry, no redirects, the body read under its byte cap, every failure a VenueError.

import ky from "ky";
import { VenueError, reasonForStatus } from "./errors.js";
import { parseRetryAfter } from "./retry-after.js";
import { DecodeError, StatusError, type Transport, VenueAnswer } from "./transport.js";

export interface GetOptions {
  url: URL;
  headers: Headers;
  /** The scrape's deadline: it bounds the request, its retry and the body read alike. */
  signal: AbortSignal;
  remainingMs: () => number;
  /** Counted in decoded bytes, so a gzip bomb stops here too. */
  maxBodyBytes: number;
  maxRetryAfterSeconds: number;
  fetch: Transport["fetch"];
  budget?: { left: number };
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

function statusFailure(response: Response, where: string, options: GetOptions): VenueError {
  const { status } = response;
  const reason = reasonForStatus(status);
  const retryAfterSeconds =
    reason === "rate_limited" ? parseRetryAfter(response.headers.get("retry-after"), Date.now(), options.maxRetryAfterSeconds) : undefined;
  const message = reason === "redirect" ? `${where}: answered ${status}, a redirect, which is never followed` : `${where}: HTTP ${status}`;
  return new VenueError(reason, message, retryAfterSeconds, status);
}

/** What a thrown error means, in our own words: never a library's message, a header or the query. */
function classify(error: unknown, where: string, options: GetOptions): VenueError {
  if (error instanceof VenueError) return error;
  if (error instanceof StatusError) return new VenueError(reasonForStatus(error.status), `${where}: HTTP ${error.status}`, undefined, error.status);
  if (options.signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))) {
    return new VenueError("timeout", `${where}: no complete answer before the scrape deadline`);
  }
  if (error instanceof DecodeError) return new VenueError("invalid_encoding", `${where}: ${error.message} (corrupt or cut short)`);
  const code = errorCode(error);
  if (code !== undefined && TLS_CODES.test(code)) return new VenueError("tls", `${where}: TLS failure (${code})`);
  return new VenueError("network", `${where}: connection failed (${code ?? "no error code"})`);
}

/** `url`'s decoded body, or a VenueError; one retry (network or 5xx, never a 429) only if it fits before the deadline and the budget. */
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
          const reason = error instanceof VenueError ? error.reason : undefined;
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
        let answer: Response;
        try {
          answer = await options.fetch(input, init, options.maxBodyBytes);
        } catch (error) {
          const failure = classify(error, where, options);
          const code = error instanceof StatusError ? String(error.status) : "error";
          options.onAttempt?.({ code, reason: failure.reason, durationMs: performance.now() - started });
          throw failure;
        }
        options.onAttempt?.({ code: String(answer.status), reason: undefined, durationMs: performance.now() - started });
        if (!answer.ok) throw statusFailure(answer, where, options);
        return answer;
      },
    });
    // The transport read the body whole (a 204 or 205 has none).
    return response instanceof VenueAnswer ? response.decoded : Buffer.alloc(0);
  } catch (error) {
    throw classify(error, where, options);
  }
}
