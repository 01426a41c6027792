// One collection per key (an account, the market list) shared by every scrape: joined while under way, served again while fresh.

import { type Deadline, orWhenAborted } from "../util/deadline.js";

/** A collection under way: its result when it ends, and what it has finished so far for a scrape that cannot wait. */
export interface Collection<T> {
  done: Promise<T>;
  /** What is finished now, the rest marked timed out: called when a scrape's deadline passes first. */
  partial(): T;
}

interface Entry<T> {
  startedAt: number;
  collection: Collection<T>;
  value?: T;
}

/** A collection runs under its own deadline (set by `start`), so a scrape that gives up first never cuts it short. */
export class SharedCollections<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** `start(last)` is called only when this scrape starts the collection; `last` is the one it replaces. */
  get(key: string, deadline: Deadline, fresh: (value: T, startedAt: number) => boolean, start: (last: T | undefined) => Collection<T>): Promise<T> {
    let entry = this.#entries.get(key);
    if (entry?.value !== undefined && fresh(entry.value, entry.startedAt)) return Promise.resolve(entry.value);
    if (entry === undefined || entry.value !== undefined) entry = this.#start(key, start, entry?.value);
    const { collection } = entry;
    return orWhenAborted(collection.done, deadline.signal, () => collection.partial());
  }

  /** `done` never rejects (the runner makes failures outcomes); if it does, joined scrapes get a 500 and the next starts afresh. */
  #start(key: string, start: (last: T | undefined) => Collection<T>, last: T | undefined): Entry<T> {
    const started: Entry<T> = { startedAt: this.#now(), collection: start(last) };
    this.#entries.set(key, started);
    started.collection.done.then(
      (value) => {
        started.value = value;
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
