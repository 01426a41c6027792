// Sharing one in-flight call between concurrent scrapes, each still bounded by its own deadline.

import type { Deadline } from "../util/deadline.js";

/**
 * Single flight: callers asking for the same key while a call is under way share its promise. The
 * call runs under the deadline of the caller that started it; a caller whose own deadline comes
 * sooner gets `fallback()` when its deadline passes, so no scrape waits past its own budget.
 */
export class SingleFlight<T> {
  readonly #inflight = new Map<string, { promise: Promise<T>; deadline: Deadline }>();

  run(key: string, deadline: Deadline, call: () => Promise<T>, fallback: () => T): Promise<T> {
    const shared = this.#inflight.get(key);
    if (shared === undefined) {
      const promise = call().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, { promise, deadline });
      return promise;
    }
    if (deadline.expiresAt >= shared.deadline.expiresAt) return shared.promise;
    return orWhenAborted(shared.promise, deadline.signal, fallback);
  }
}

/** `promise`, or `fallback()` if `signal` aborts first. */
function orWhenAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => resolve(fallback());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
