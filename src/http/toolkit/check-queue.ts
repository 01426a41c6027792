// Password checks one at a time, the next from the address with the fewest recent failures and attempts, newest first.

import type { AddressStandings, Standing } from "./address-standing.js";

/** Checks waiting at most, one per address group: a waiting request holds a socket. Past it the lowest-ranked is refused. */
export const MAX_WAITING_CHECKS = 128;
/** A check's wait for its turn: Prometheus retries a 429 only at its next interval; this leaves half its default 10 s timeout. */
export const MAX_WAIT_MS = 5_000;

/** A check not run (address_busy, queue_full, wait_expired): the client is told to retry (429), not that its password is wrong. */
export class CheckRefusedError extends Error {
  override readonly name = "CheckRefusedError";
}

interface Waiting<T> {
  group: string;
  arrival: number;
  run(): Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  timer?: ReturnType<typeof setTimeout>;
}

/** Fewest recent failures, then fewest attempts, then the newest: a scraper must not queue behind a flood's first wave. */
function rank(a: Standing & { arrival: number }, b: Standing & { arrival: number }): number {
  return a.failures - b.failures || a.attempts - b.attempts || b.arrival - a.arrival;
}

export class CheckQueue<T> {
  readonly #standings: AddressStandings;
  readonly #waiting = new Set<Waiting<T>>();
  readonly #busy = new Set<string>();
  #running = false;
  #arrivals = 0;

  constructor(standings: AddressStandings) {
    this.#standings = standings;
  }

  submit(group: string, run: () => Promise<T>): Promise<T> {
    this.#standings.attempted(group);
    if (this.#busy.has(group)) return Promise.reject(new CheckRefusedError("password check refused: address_busy"));
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting<T> = { group, arrival: this.#arrivals++, run, resolve, reject };
      if (this.#waiting.size >= MAX_WAITING_CHECKS) {
        const last = this.#ranked(entry).at(-1) ?? entry;
        const full = new CheckRefusedError("password check refused: queue_full");
        if (last === entry) return reject(full);
        this.#drop(last, full);
      }
      entry.timer = setTimeout(() => this.#drop(entry, new CheckRefusedError("password check refused: wait_expired")), MAX_WAIT_MS);
      entry.timer.unref();
      this.#waiting.add(entry);
      this.#busy.add(group);
      this.#next();
    });
  }

  #ranked(...also: Waiting<T>[]): Waiting<T>[] {
    const keyed = [...this.#waiting, ...also].map((entry) => ({ entry, key: { ...this.#standings.of(entry.group), arrival: entry.arrival } }));
    return keyed.sort((a, b) => rank(a.key, b.key)).map(({ entry }) => entry);
  }

  #drop(entry: Waiting<T>, error: CheckRefusedError): void {
    if (!this.#waiting.delete(entry)) return;
    clearTimeout(entry.timer);
    this.#busy.delete(entry.group);
    entry.reject(error);
  }

  #next(): void {
    if (this.#running) return;
    const entry = this.#ranked()[0];
    if (entry === undefined) return;
    this.#waiting.delete(entry);
    clearTimeout(entry.timer);
    this.#running = true;
    const done = (): void => {
      this.#running = false;
      this.#busy.delete(entry.group);
      this.#next();
    };
    entry.run().finally(done).then(entry.resolve, entry.reject);
  }
}
