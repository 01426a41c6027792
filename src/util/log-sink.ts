// Where log lines go: sonic-boom (pino's destination) on a file descriptor, written in the background, which a failing reader never blocks.

import sonicBoom from "sonic-boom";

/** sonic-boom is CommonJS whose module.exports is the class; its types describe an ES module that exports it by name. */
const SonicBoom = sonicBoom as unknown as typeof sonicBoom.SonicBoom;

/** Bytes held while the reader is slow; past this the newest lines are dropped (and counted), never the process. */
const MAX_QUEUED_BYTES = 1 << 20;

/** Errors a full or failing disk gives: the lines are kept (up to the bound) and written again with the next line. */
const PASSING = new Set(["ENOSPC", "EIO", "EDQUOT"]);

/**
 * Asynchronous sonic-boom behind the redacting or logfmt `transform`. A stalled reader holds at most MAX_QUEUED_BYTES;
 * a gone one (EPIPE, EBADF...) turns the sink off. Not pino.destination: its synchronous flush at exit would block
 * forever on a reader that stopped reading. Never throws: logging never blocks a scrape or keeps the process alive.
 */
export class LogSink {
  readonly #destination: InstanceType<typeof SonicBoom>;
  readonly #transform: (line: string) => string;
  /** Bytes accepted and not yet written. */
  #pending = 0;
  /** Set by a refused write and cleared by the next line: the refused lines wait in the destination for it. */
  #stalled = false;
  #failed = false;
  #dropped = 0;

  constructor(fd = 2, transform: (line: string) => string = (line) => line) {
    this.#transform = transform;
    this.#destination = new SonicBoom({ fd, sync: false, maxLength: MAX_QUEUED_BYTES });
    this.#destination.on("write", (n: number) => {
      this.#pending -= n;
      this.#stalled = false;
    });
    this.#destination.on("drop", () => this.#dropped++);
    this.#destination.on("error", (error: NodeJS.ErrnoException) => {
      // A refused write counts as a line dropped; anything but a full or failing disk ends the log for good.
      this.#dropped++;
      this.#stalled = true;
      if (!PASSING.has(error.code ?? "")) this.#failed = true;
    });
  }

  /** Lines dropped because the reader was too slow or gone, and writes a full disk refused. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Whether the sink stopped writing for good after an error of its reader. */
  get failed(): boolean {
    return this.#failed;
  }

  /** pino calls this with each serialized line. Never throws. */
  write(text: string): boolean {
    if (this.#failed) {
      this.#dropped++;
      return true;
    }
    let line: string;
    try {
      line = this.#transform(text);
    } catch {
      // Unredacted is never written: a line the transform could not make safe is dropped and counted.
      this.#dropped++;
      return true;
    }
    const dropped = this.#dropped;
    this.#stalled = false;
    this.#destination.write(line);
    if (this.#dropped === dropped) this.#pending += Buffer.byteLength(line);
    return true;
  }

  /** Resolves when every accepted line is written, a write was refused, or `timeoutMs` passed, whichever is first. */
  flush(timeoutMs = 1_000): Promise<void> {
    if (this.#failed || this.#stalled || this.#pending <= 0) return Promise.resolve();
    const destination = this.#destination;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        destination.off("drain", done).off("error", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      destination.on("drain", done).on("error", done);
    });
  }
}
