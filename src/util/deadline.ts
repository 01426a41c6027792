// A scrape's deadline: an abort signal plus the time left, shared by every call of the scrape.

export class Deadline {
  readonly signal: AbortSignal;
  /** Epoch milliseconds at which the scrape must answer. */
  readonly expiresAt: number;
  readonly #now: () => number;

  constructor(seconds: number, now: () => number = Date.now) {
    this.#now = now;
    this.expiresAt = now() + seconds * 1000;
    this.signal = AbortSignal.timeout(Math.max(1, Math.round(seconds * 1000)));
  }

  remainingMs(): number {
    return Math.max(0, this.expiresAt - this.#now());
  }
}
