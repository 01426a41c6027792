// At most one log line per kind per window: a warning a thousand accounts repeat is one line a minute, not a thousand.

export class LineRateLimit {
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Per kind: when its last line was written and how many were held back since. */
  readonly #kinds = new Map<string, { writtenAt: number; held: number }>();

  /** `windowMs`: how long one kind of line stays quiet after it was written. */
  constructor(windowMs = 60_000, now: () => number = Date.now) {
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /**
   * Whether a line of `kind` may be written now: `undefined` holds it back (and counts it); a number lets it
   * through and says how many of its kind were held back since the last one written, for that line to tell.
   */
  take(kind: string): number | undefined {
    const now = this.#now();
    const last = this.#kinds.get(kind);
    if (last !== undefined && now - last.writtenAt < this.#windowMs) {
      last.held += 1;
      return undefined;
    }
    this.#kinds.set(kind, { writtenAt: now, held: 0 });
    return last?.held ?? 0;
  }
}
