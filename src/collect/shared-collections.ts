// One collection per key (an account, the market list) shared by every scrape: joined while under way, served again while fresh.

import type { Deadline } from "../util/deadline.js";

interface Entry<T> {
  startedAt: number;
  promise: Promise<T>;
  /** Set once the collection finished. */
  value?: T;
  /** The collection this one replaces, served to a scrape whose deadline passes before this one finishes. */
  previous?: T;
}

/**
 * The one cache the minimum collection interval and coalescing need. A collection runs under a deadline of
 * its own (the caller's `collect` sets it), so no scrape's deadline shortens it. A scrape that finds its key's
 * collection under way joins it; one that finds a finished collection still `fresh` gets that same object
 * back; any other starts a new one. A scrape whose deadline passes before the collection finishes gets the
 * previous collection, or `fallback()` when there is none, and the collection goes on for the next scrapes.
 */
export class SharedCollections<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** `collect()` is called only when this scrape starts the collection (so a debug probe traces only its own). */
  get(key: string, deadline: Deadline, fresh: (value: T, startedAt: number) => boolean, collect: () => Promise<T>, fallback: () => T): Promise<T> {
    let entry = this.#entries.get(key);
    if (entry?.value !== undefined && fresh(entry.value, entry.startedAt)) return Promise.resolve(entry.value);
    if (entry === undefined || entry.value !== undefined) entry = this.#start(key, collect, entry?.value);
    const { previous } = entry;
    return orWhenAborted(entry.promise, deadline.signal, () => previous ?? fallback());
  }

  #start(key: string, collect: () => Promise<T>, previous: T | undefined): Entry<T> {
    const started: Entry<T> = { startedAt: this.#now(), promise: collect(), ...(previous === undefined ? {} : { previous }) };
    this.#entries.set(key, started);
    started.promise.then(
      (value) => {
        started.value = value;
        delete started.previous;
      },
      () => {
        // A collection that threw (a bug: the runner turns every venue failure into an outcome) is not served again.
        if (this.#entries.get(key) === started) this.#entries.delete(key);
      },
    );
    return started;
  }

  /** Takes over `from`'s entry for `key` (a collection under way or finished), as a reload does for what it did not change. */
  adopt(from: SharedCollections<T>, key: string): void {
    const entry = from.#entries.get(key);
    if (entry !== undefined) this.#entries.set(key, entry);
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
