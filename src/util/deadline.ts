// A scrape's deadline: an abort signal plus the time left on the monotonic clock, shared by every call of the scrape.

export class Deadline {
  readonly signal: AbortSignal;
  readonly #expiresAt: number;

  constructor(seconds: number) {
    this.#expiresAt = performance.now() + seconds * 1000;
    this.signal = AbortSignal.timeout(Math.max(1, Math.round(seconds * 1000)));
  }

  remainingMs(): number {
    return Math.max(0, this.#expiresAt - performance.now());
  }
}
