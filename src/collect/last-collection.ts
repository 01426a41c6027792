// The last collection per key (an account, the market list): joined while under way, served again while fresh.

import type { Deadline } from "../util/deadline.js";

interface Entry<T> {
  startedAt: number;
  /** The deadline the collection runs under: the one of the scrape that started it. */
  deadline: Deadline;
  promise: Promise<T>;
  /** Set once the collection finished. */
  value?: T;
}

/**
 * The one cache the minimum collection interval and coalescing need. A scrape that finds its key's
 * collection under way joins it, bounded by its own deadline (it gets `fallback()` when that passes
 * first); one that finds a finished collection still `fresh` gets that same object back, so every
 * scraper inside the interval is served the same data; any other starts a new collection.
 */
export class LastCollection<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  get(key: string, deadline: Deadline, fresh: (value: T, startedAt: number) => boolean, collect: () => Promise<T>, fallback: () => T): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry?.value !== undefined && fresh(entry.value, entry.startedAt)) return Promise.resolve(entry.value);
    if (entry !== undefined && entry.value === undefined) {
      if (deadline.expiresAt >= entry.deadline.expiresAt) return entry.promise;
      return orWhenAborted(entry.promise, deadline.signal, fallback);
    }
    const started: Entry<T> = { startedAt: this.#now(), deadline, promise: collect() };
    this.#entries.set(key, started);
    started.promise.then(
      (value) => {
        started.value = value;
      },
      () => {
        // A failed collection is never served again: the next scrape collects anew.
        if (this.#entries.get(key) === started) this.#entries.delete(key);
      },
    );
    return started.promise;
  }
}

/** `promise`, or `fallback()` if `signal` aborts first. */
function orWhenAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback());
  const aborted = Promise.withResolvers<T>();
  const onAbort = () => aborted.resolve(fallback());
  signal.addEventListener("abort", onAbort, { once: true });
  return Promise.race([promise, aborted.promise]).finally(() => signal.removeEventListener("abort", onAbort));
}
