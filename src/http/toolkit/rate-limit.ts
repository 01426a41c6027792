// The web config's rate_limit: one token bucket over every request, as exporter-toolkit's, answering 429 past it.

import type express from "express";
import type { RateLimit } from "./web-config-schema.js";

/** Go's rate.Limiter as exporter-toolkit uses it: full at the start, one more token every `intervalMs` up to `burst`. */
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

  take(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

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

export function rateLimit(limit: RateLimit | undefined, onLimited?: () => void): express.RequestHandler {
  if (limit === undefined) return (_req, _res, next) => next();
  const bucket = new TokenBucket(limit);
  return (_req, res, next) => {
    if (bucket.take()) return next();
    onLimited?.();
    res
      .status(429)
      .set({ "retry-after": String(Math.max(1, Math.ceil(bucket.waitMs() / 1000))), connection: "close" })
      .type("text/plain")
      .send("429 Too Many Requests: over the web config's rate_limit, retry shortly\n");
  };
}
