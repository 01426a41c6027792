// The venue's request budget (venue.max_requests_per_second): requests to its origin spaced evenly, in arrival order.

/** Spaced 1/perSecond apart, no burst: in any second the venue sees at most the budget, whoever asks. */
export class RequestPace {
  readonly #gapMs: number;
  /** performance.now() ms before which the next request may not be sent. */
  #next = 0;
  readonly #waiting: Array<() => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onWait: (ms: number) => void;

  /** `onWait` is told how long each request that had to wait waited. */
  constructor(perSecond: number, onWait: (ms: number) => void = () => undefined) {
    this.#gapMs = 1000 / perSecond;
    this.#onWait = onWait;
  }

  /** Resolves when a request may go; rejects with the signal's reason if it aborts first, which frees its turn. */
  take(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const now = performance.now();
    if (this.#waiting.length === 0 && now >= this.#next) {
      this.#next = now + this.#gapMs;
      return Promise.resolve();
    }
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const go = () => {
      signal.removeEventListener("abort", onAbort);
      this.#onWait(performance.now() - now);
      resolve();
    };
    const onAbort = () => {
      this.#waiting.splice(this.#waiting.indexOf(go), 1);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#waiting.push(go);
    this.#schedule();
    return promise;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#waiting.length === 0) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        const now = performance.now();
        if (now >= this.#next) {
          this.#next = now + this.#gapMs;
          this.#waiting.shift()?.();
        }
        this.#schedule();
      },
      Math.max(0, this.#next - performance.now()),
    );
    // A request waiting for its turn keeps no process alive that is stopping.
    this.#timer.unref();
  }
}
