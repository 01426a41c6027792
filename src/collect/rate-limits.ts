// Remembers a venue's Retry-After per account and endpoint, so the endpoint is skipped until then.

import type { Endpoint } from "../venue/endpoints.js";

export class RateLimits {
  readonly #until = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  #key(account: string | undefined, endpoint: Endpoint): string {
    return `${account ?? ""}\u0000${endpoint}`;
  }

  /** Milliseconds the endpoint must still be left alone, or 0. */
  remainingMs(account: string | undefined, endpoint: Endpoint): number {
    const key = this.#key(account, endpoint);
    const until = this.#until.get(key);
    if (until === undefined) return 0;
    const left = until - this.#now();
    if (left <= 0) this.#until.delete(key);
    return Math.max(0, left);
  }

  block(account: string | undefined, endpoint: Endpoint, seconds: number): void {
    if (seconds > 0) this.#until.set(this.#key(account, endpoint), this.#now() + seconds * 1000);
  }
}
