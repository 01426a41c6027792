// A scrape's deadline: an abort signal plus the time left on the monotonic clock, shared by every call of the scrape.

export class Deadline {
  readonly signal: AbortSignal;
  readonly #expiresAt: number;
  readonly #timer: NodeJS.Timeout;

  constructor(seconds: number) {
    this.#expiresAt = performance.now() + seconds * 1000;
    const controller = new AbortController();
    this.signal = controller.signal;
    this.#timer = setTimeout(() => controller.abort(new DOMException("deadline passed", "TimeoutError")), Math.max(1, Math.round(seconds * 1000)));
    this.#timer.unref();
  }

  /** Frees the timer of a deadline whose work has ended, so a thousand finished collections hold none. */
  end(): void {
    clearTimeout(this.#timer);
  }

  remainingMs(): number {
    return Math.max(0, this.#expiresAt - performance.now());
  }
}

/** `promise`, or `fallback()` once `signal` aborts first (at once if it already has). */
export function orWhenAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback());
  const aborted = Promise.withResolvers<T>();
  const onAbort = () => aborted.resolve(fallback());
  signal.addEventListener("abort", onAbort, { once: true });
  return Promise.race([promise, aborted.promise]).finally(() => signal.removeEventListener("abort", onAbort));
}
