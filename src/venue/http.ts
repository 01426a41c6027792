// One GET to the venue: bounded body, no redirects, every failure a VenueError with a reason.

import ky from "ky";
import { poolFetch, pooledBody, type RawBody } from "./pool-fetch.js";
import type { PoolRequest } from "./transport.js";
import { VenueError, reasonForStatus } from "./errors.js";
import { parseRetryAfter } from "./retry-after.js";

export interface GetJsonOptions {
  url: URL;
  headers: Headers;
  signal: AbortSignal;
  /** Largest decoded body accepted, in bytes (a gzip bomb stops here too). */
  maxBodyBytes: number;
  /** Longest Retry-After honoured, in seconds. */
  maxRetryAfterSeconds: number;
  /** The connection pool's request(), which reads, decodes and caps the body (pool-fetch.ts). */
  request: PoolRequest;
  /** Called with the HTTP status, or "error" when no status came back. */
  onAnswer?: (code: string) => void;
}

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

/** What a thrown fetch error means, named without echoing headers or the query. */
function classify(error: unknown, where: string, signal: AbortSignal): VenueError {
  if (error instanceof VenueError) return error;
  if (signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))) {
    return new VenueError("timeout", `${where}: no complete answer before the scrape deadline`);
  }
  const code = errorCode(error);
  if (code !== undefined && TLS_CODES.test(code)) {
    return new VenueError("tls", `${where}: TLS failure (${code})`);
  }
  return new VenueError("network", `${where}: connection failed (${code ?? "no error code"})`);
}

export type { RawBody };

/** GETs `url` and returns its body, or throws a VenueError. */
export async function getBody(options: GetJsonOptions): Promise<RawBody> {
  const where = `GET ${options.url.pathname}`;
  let response: Response;
  try {
    // ky's own timeout and retry stay off: the scrape's deadline signal bounds every call, and the
    // client retries within that deadline (client.ts), spending the history pager's budget per attempt.
    response = await ky.get(options.url, {
      headers: options.headers,
      signal: options.signal,
      timeout: false,
      retry: 0,
      throwHttpErrors: false,
      redirect: "manual",
      // Through the pool with Node streams, not Node's fetch (see pool-fetch.ts).
      fetch: poolFetch(options.request, options.maxBodyBytes),
    });
  } catch (error) {
    options.onAnswer?.("error");
    throw classify(error, where, options.signal);
  }
  options.onAnswer?.(String(response.status));
  const reason = reasonForStatus(response.status);
  if (reason !== undefined) {
    const retryAfterSeconds =
      reason === "rate_limited" ? parseRetryAfter(response.headers.get("retry-after"), Date.now(), options.maxRetryAfterSeconds) : undefined;
    const message = reason === "redirect" ? `${where}: answered ${response.status}, a redirect, which is never followed` : `${where}: HTTP ${response.status}`;
    throw new VenueError(reason, message, {
      status: response.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  const body = pooledBody(response);
  if (body === undefined) throw new Error(`${where}: answer did not come through the pool`);
  return body;
}
