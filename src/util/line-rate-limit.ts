// At most one log line per kind per window: a warning a thousand accounts repeat is one line a minute, not a thousand.

export class LineRateLimit {
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #kinds = new Map<string, { writtenAt: number; held: number }>();

  /** `now` is monotonic: a wall clock stepped back would hold every line of a kind back until it caught up. */
  constructor(windowMs = 60_000, now: () => number = () => performance.now()) {
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** `undefined` holds a line of `kind` back; a number lets it through and says how many were held back since. */
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
