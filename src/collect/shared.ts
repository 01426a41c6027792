// Single flight: callers asking for the same key while a call is under way share its promise.

export class SingleFlight<T> {
  readonly #inflight = new Map<string, Promise<T>>();

  run(key: string, call: () => Promise<T>): Promise<T> {
    let shared = this.#inflight.get(key);
    if (shared === undefined) {
      shared = call().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, shared);
    }
    return shared;
  }
}

/** `promise`, or `fallback()` if `signal` aborts first. */
export function orWhenAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: () => T): Promise<T> {
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
