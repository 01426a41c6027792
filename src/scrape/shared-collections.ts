// One collection per key (an account, the market list) shared by every scrape: joined while under way, served again while fresh.

import { type Deadline, orWhenAborted } from "../util/deadline.js";

/** A collection under way: its result when it ends, and what it has finished so far for a scrape that cannot wait. */
export interface Collection<T> {
  done: Promise<T>;
  /** What is finished now, the rest marked timed out: called when a scrape's deadline passes first. */
  partial(): T;
}

/** A key's collection, in flight (no value yet) or last. */
export type Shared<T> = { startedAt: number; collection: Collection<T>; value?: T };

type Slot<T> = { shared: Shared<T> | undefined };

/** Joins the slot's collection in flight, else begins `start(last value)` (a fresh one the caller serves); on its own deadline, a scrape giving up never cuts it. */
export function joinOrStart<T>(slot: Slot<T>, now: () => number, deadline: Deadline, start: (last: T | undefined) => Collection<T>): Promise<T> {
  let shared = slot.shared;
  if (shared === undefined || shared.value !== undefined) {
    const started: Shared<T> = { startedAt: now(), collection: start(shared?.value) };
    slot.shared = shared = started;
    // `done` never rejects (the runner makes failures outcomes); if it does, joined scrapes get a 500 and the next starts afresh.
    started.collection.done.then(
      (value) => {
        started.value = value;
      },
      () => {
        if (slot.shared === started) slot.shared = undefined;
      },
    );
  }
  const { collection } = shared;
  return orWhenAborted(collection.done, deadline.signal, () => collection.partial());
}
