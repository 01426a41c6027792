// One GET to the venue: bounded body, no redirects, every failure a VenueError with a reason.

import ky from "ky";
import { poolFetch, pooledBody, type RawBody } from "./pool-fetch.js";
import type { PoolRequest } from "./transport.js";
import { VenueError, reasonForStatus } from "./errors.js";
import { parseJson } from "../util/json-parse.js";
import { parseRetryAfter } from "./retry-after.js";

export interface GetJsonOptions {
  url: URL;
  headers: Headers;
  signal: AbortSignal;
  /** Largest decoded body accepted, in bytes (a gzip bomb stops here too). */
  maxBodyBytes: number;
  /** Longest Retry-After honoured, in seconds. */
  maxRetryAfterSeconds: number;
  /** The connection pool's request(); Node's fetch when absent. */
  request?: PoolRequest;
  /** Called with the HTTP status, or "error" when no status came back. */
  onAnswer?: (code: string) => void;
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/;

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
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

export function bodyText(body: RawBody): string {
  return Buffer.concat(body.chunks, body.length).toString("utf8");
}

async function readCapped(response: Response, maxBytes: number, where: string): Promise<RawBody> {
  const pooled = pooledBody(response);
  if (pooled !== undefined) return pooled; // already read, decoded and capped by poolFetch
  const declared = Number(response.headers.get("content-length"));
  // A declared length is only trusted for plain bodies: a compressed one inflates.
  if (!response.headers.has("content-encoding") && Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new VenueError("too_large", `${where}: body of ${declared} bytes is over the ${maxBytes} byte limit`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (response.body === null) return { chunks, length };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw new VenueError("too_large", `${where}: body over the ${maxBytes} byte limit`);
    }
    chunks.push(value);
  }
  return { chunks, length };
}

/** GETs `url` and returns its body, or throws a VenueError. */
export async function getBody(options: GetJsonOptions): Promise<RawBody> {
  const where = `GET ${options.url.pathname}`;
  let response: Response;
  try {
    const kyOptions = {
      headers: options.headers,
      signal: options.signal,
      timeout: false,
      retry: 0,
      throwHttpErrors: false,
      redirect: "manual",
      // Through the pool with Node streams when there is one (see pool-fetch.ts); else Node's fetch.
      ...(options.request === undefined ? {} : { fetch: poolFetch(options.request, options.maxBodyBytes) }),
    };
    // The undici package's Dispatcher type differs from the one bundled with Node's types; the object is one.
    response = await ky.get(options.url, kyOptions as unknown as Parameters<typeof ky.get>[1]);
  } catch (error) {
    options.onAnswer?.("error");
    throw classify(error, where, options.signal);
  }
  options.onAnswer?.(String(response.status));
  const reason = reasonForStatus(response.status);
  if (reason !== undefined) {
    await response.body?.cancel().catch(() => undefined);
    const retryAfterSeconds =
      reason === "rate_limited"
        ? parseRetryAfter(response.headers.get("retry-after"), Date.now(), options.maxRetryAfterSeconds)
        : undefined;
    const message =
      reason === "redirect" ? `${where}: answered ${response.status}, a redirect, which is never followed` : `${where}: HTTP ${response.status}`;
    throw new VenueError(reason, message, {
      status: response.status,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  try {
    return await readCapped(response, options.maxBodyBytes, where);
  } catch (error) {
    throw classify(error, where, options.signal);
  }
}

/** The body as JSON, or an invalid_json VenueError naming the path. */
export async function parseBody(text: string, url: URL): Promise<unknown> {
  try {
    return await parseJson(text);
  } catch {
    throw new VenueError("invalid_json", `GET ${url.pathname}: body is not valid JSON (${text.length} characters)`);
  }
}
