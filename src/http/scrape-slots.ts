// The in-flight limit as slots: a scrape over it waits briefly in a bounded line (of none by default), then is answered 503.

/**
 * Scrapes served at once, and a line of scrapes waiting for a slot. With a line, a burst (a thousand probe
 * targets after a restart, spread by Prometheus over the interval but slowed by the first collections)
 * waits a moment instead of failing: a waiting scrape holds a socket, not the memory of a collection.
 * Without one (maxWaiting 0), a scrape past the limit is refused at once, as node_exporter's --web.max-requests does.
 */
export class ScrapeSlots {
  readonly #max: number;
  readonly #maxWaiting: number;
  #busy = 0;
  readonly #waiting: Array<(granted: boolean) => void> = [];

  constructor(max: number, maxWaiting: number = max) {
    this.#max = max;
    this.#maxWaiting = maxWaiting;
  }

  /** A slot, at once or within `waitMs`: true once held (give it back with `release`), false when refused. */
  acquire(waitMs: number): Promise<boolean> {
    if (this.#busy < this.#max) {
      this.#busy++;
      return Promise.resolve(true);
    }
    if (waitMs <= 0 || this.#waiting.length >= this.#maxWaiting) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(false);
      }, waitMs);
      const grant = (granted: boolean) => {
        clearTimeout(timer);
        resolve(granted);
      };
      this.#waiting.push(grant);
    });
  }

  /** Gives a slot back: to the first scrape waiting, if any. */
  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(true);
    else this.#busy--;
  }
}
