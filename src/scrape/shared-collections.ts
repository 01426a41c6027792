// One collection per key (an account, the market list) shared by every scrape: joined while under way, served again while fresh.

import type { Deadline } from "../util/deadline.js";

interface Entry<T> {
  startedAt: number;
  promise: Promise<T>;
  value?: T;
  /** The collection this one replaces, served to a scrape whose deadline passes before this one finishes. */
  previous?: T;
}

/** A collection runs under its own deadline (set by `collect`), so a scrape that gives up first never cuts it short. */
export class SharedCollections<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** `collect()` is called only when this scrape starts the collection. */
  get(key: string, deadline: Deadline, fresh: (value: T, startedAt: number) => boolean, collect: () => Promise<T>, fallback: () => T): Promise<T> {
    let entry = this.#entries.get(key);
    if (entry?.value !== undefined && fresh(entry.value, entry.startedAt)) return Promise.resolve(entry.value);
    if (entry === undefined || entry.value !== undefined) entry = this.#start(key, collect, entry?.value);
    const { previous } = entry;
    return orWhenAborted(entry.promise, deadline.signal, () => previous ?? fallback());
  }

  /** `collect()` never rejects (the runner makes failures outcomes); if it does, joined scrapes get a 500 and the next starts afresh. */
  #start(key: string, collect: () => Promise<T>, previous: T | undefined): Entry<T> {
    const started: Entry<T> = { startedAt: this.#now(), promise: collect(), ...(previous === undefined ? {} : { previous }) };
    this.#entries.set(key, started);
    started.promise.then(
      (value) => {
        started.value = value;
        delete started.previous;
      },
      () => {
        if (this.#entries.get(key) === started) this.#entries.delete(key);
      },
    );
    return started;
  }

  /** Takes over `from`'s entry for `key`, under way or finished: a reload keeps what it did not change. */
  adopt(from: SharedCollections<T>, key: string): void {
    const entry = from.#entries.get(key);
    if (entry !== undefined) this.#entries.set(key, entry);
  }
}

function orWhenAborted<T>(promise: Promise<T>, signal: AbortSignal, fallback: () => T): Promise<T> {
  if (signal.aborted) return Promise.resolve(fallback());
  const aborted = Promise.withResolvers<T>();
  const onAbort = () => aborted.resolve(fallback());
  signal.addEventListener("abort", onAbort, { once: true });
  return Promise.race([promise, aborted.promise]).finally(() => signal.removeEventListener("abort", onAbort));
}
