// The web config's rate_limit: one token bucket over every request, as exporter-toolkit's, answering 429 past it.

import type express from "express";
import type { RateLimit } from "./web-config-schema.js";

/**
 * Go's rate.Limiter as exporter-toolkit uses it: full at the start with `burst` tokens, one more every
 * `intervalMs` up to `burst`; a request takes one or is refused. Time is monotonic and passed in, so a
 * test can move it.
 */
export class TokenBucket {
  readonly #limit: RateLimit;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  constructor(limit: RateLimit, now: () => number = () => performance.now()) {
    this.#limit = limit;
    this.#now = now;
    this.#tokens = limit.burst;
    this.#at = now();
  }

  /** Takes a token if there is one. */
  take(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until the next token. */
  waitMs(): number {
    this.#refill();
    return Math.max(0, (1 - this.#tokens) * this.#limit.intervalMs);
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#limit.burst, this.#tokens + (now - this.#at) / this.#limit.intervalMs);
    this.#at = now;
  }
}

/**
 * Refuses requests past the bucket with 429 and a Retry-After, calling `onLimited` for each; passes
 * everything when `limit` is undefined (off).
 */
export function rateLimit(limit: RateLimit | undefined, onLimited?: () => void): express.RequestHandler {
  if (limit === undefined) return (_req, _res, next) => next();
  const bucket = new TokenBucket(limit);
  return (_req, res, next) => {
    if (bucket.take()) return next();
    onLimited?.();
    res
      .status(429)
      .set("retry-after", String(Math.max(1, Math.ceil(bucket.waitMs() / 1000))))
      .type("text/plain")
      .send("429 Too Many Requests: over the web config's rate_limit, retry shortly\n");
  };
}
