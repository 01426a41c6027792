// The middleware a web config puts before every route: its response headers, its rate limit, then basic auth.

import type express from "express";
import { basicAuth } from "./basic-auth.js";
import type { RateLimit, WebConfig } from "./web-config.js";

export interface GuardEvents {
  rateLimited(): void;
}

/** Go's rate.Limiter as exporter-toolkit uses it: full at the start, one more token every `intervalMs` up to `burst`. */
export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly limit: RateLimit,
    readonly now: () => number = () => performance.now(),
  ) {
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
    return Math.max(0, (1 - this.#tokens) * this.limit.intervalMs);
  }

  #refill(): void {
    const now = this.now();
    this.#tokens = Math.min(this.limit.burst, this.#tokens + (now - this.#at) / this.limit.intervalMs);
    this.#at = now;
  }
}

/** The headers go on the 429s and 401s too; the rate limit comes before basic auth, so a flood past it costs no bcrypt. */
export function webGuards(config: WebConfig, events?: GuardEvents): express.RequestHandler[] {
  const guards: express.RequestHandler[] = [
    (_req, res, next) => {
      res.set(config.headers);
      next();
    },
  ];
  if (config.rateLimit !== undefined) {
    const bucket = new TokenBucket(config.rateLimit);
    guards.push((_req, res, next) => {
      if (bucket.take()) return next();
      events?.rateLimited();
      // One token bucket over every request, as exporter-toolkit's; closed after the answer (server.ts).
      res
        .status(429)
        .set({ "retry-after": String(Math.max(1, Math.ceil(bucket.waitMs() / 1000))), connection: "close" })
        .type("text/plain")
        .send("429 Too Many Requests: over the web config's rate_limit, retry shortly\n");
    });
  }
  return [...guards, basicAuth(config.basicAuthUsers)];
}
