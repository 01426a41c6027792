// A bounded number of places, given in arrival order: answers made at once (--web.max-requests), collections at the venue at once.

/** A waiter holds a promise, not a collection's memory: the line is as long as the work asked for, one entry per key at most. */
export class Places {
  #busy = 0;
  readonly #waiting: Array<() => void> = [];

  /** `max` places; Infinity for no limit. */
  constructor(readonly max: number) {}

  /** Resolves once a place is held, in arrival order; `release()` gives it up. */
  acquire(): Promise<void> {
    if (this.#busy < this.max) {
      this.#busy++;
      return Promise.resolve();
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiting.push(resolve);
    return promise;
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#busy--;
  }

  /** `work` run in a place, the place given up however it ends. */
  async run<T>(work: () => Promise<T> | T): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}
