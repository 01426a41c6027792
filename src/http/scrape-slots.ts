// The in-flight limit as slots: a scrape over it waits briefly in a bounded line (of none by default), then is answered 503.

/** A waiting scrape holds a socket, not a collection's memory; with maxWaiting 0 it is refused at once (node_exporter's way). */
export class ScrapeSlots {
  #busy = 0;
  readonly #waiting: Array<(granted: boolean) => void> = [];

  constructor(
    readonly max: number,
    readonly maxWaiting: number,
  ) {}

  /** Whether a scrape arriving now gets a slot at once, without waiting in the line. */
  hasFree(): boolean {
    return this.#busy < this.max;
  }

  acquire(waitMs: number): Promise<boolean> {
    if (this.#busy < this.max) {
      this.#busy++;
      return Promise.resolve(true);
    }
    if (waitMs <= 0 || this.#waiting.length >= this.maxWaiting) return Promise.resolve(false);
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

  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(true);
    else this.#busy--;
  }
}
