// Where log lines go: sonic-boom on a file descriptor, written in the background, so a failing reader never blocks.

import sonicBoom from "sonic-boom";

/** sonic-boom is CommonJS whose module.exports is the class; its types describe an ES module that exports it by name. */
const SonicBoom = sonicBoom as unknown as typeof sonicBoom.SonicBoom;

const MAX_QUEUED_BYTES = 1 << 20;

/** A full or failing disk: the lines are kept (up to the bound) and written again with the next line. */
const PASSING = new Set(["ENOSPC", "EIO", "EDQUOT"]);

/** Never throws or blocks; not pino.destination, whose synchronous flush at exit blocks forever on a reader that stopped. */
export class LogSink {
  readonly #destination: InstanceType<typeof SonicBoom>;
  readonly #transform: (line: string) => string;
  #pending = 0;
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
      this.#dropped++;
      this.#stalled = true;
      if (!PASSING.has(error.code ?? "")) this.#failed = true;
    });
  }

  get dropped(): number {
    return this.#dropped;
  }

  get failed(): boolean {
    return this.#failed;
  }

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

  flush(timeoutMs = 1_000): Promise<void> {
    if (this.#failed || this.#stalled || this.#pending <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#destination.off("drain", done).off("error", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.#destination.on("drain", done).on("error", done);
    });
  }
}
