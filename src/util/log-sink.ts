// Where log lines go: a file descriptor written in the background, which a failing reader never blocks.

import { fstatSync, write } from "node:fs";
import { Socket } from "node:net";

/** Lines held while the reader is slow; past this the newest are dropped (and counted), never the process. */
const MAX_QUEUED_BYTES = 1 << 20;
/** Wait before writing again to a non-blocking pipe that was full. */
const RETRY_MS = 20;

/**
 * A pino destination on a file descriptor (stderr by default). Writes are asynchronous and one at a
 * time, so a reader that stops reading holds at most MAX_QUEUED_BYTES; a reader that is gone (EPIPE,
 * ENOSPC, EBADF...) turns the sink off. A pipe or socket is written through a non-blocking socket on
 * the event loop: a blocking write in the thread pool to a stalled pipe would never return, and the
 * process could then not exit. A file or terminal is written with fs.write. No error of the sink is
 * ever thrown or emitted: logging is never a reason to block a scrape or to stay alive.
 */
export class LogSink {
  readonly #fd: number;
  readonly #transform: (line: string) => string;
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  #writing = false;
  #failed = false;
  #dropped = 0;
  #idle: Array<() => void> = [];
  /** Set on the first write when the descriptor is a pipe or socket. */
  #socket: Socket | undefined;
  #kind: "stream" | "file" | undefined;

  constructor(fd = 2, transform: (line: string) => string = (line) => line) {
    this.#fd = fd;
    this.#transform = transform;
  }

  /** Lines not written: the sink failed or the reader was too slow. */
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
      line = text;
    }
    const bytes = Buffer.from(line, "utf8");
    if (this.#queuedBytes + bytes.length > MAX_QUEUED_BYTES) {
      this.#dropped++;
      return true;
    }
    this.#queue.push(bytes);
    this.#queuedBytes += bytes.length;
    this.#next();
    return true;
  }

  /** Resolves when every queued line is written, the sink failed, or `timeoutMs` passed, whichever is first. */
  flush(timeoutMs = 1_000): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #next(): void {
    if (this.#writing) return;
    if (this.#failed || this.#queue.length === 0) {
      const waiting = this.#idle;
      this.#idle = [];
      for (const wake of waiting) wake();
      return;
    }
    const data = this.#queue.length === 1 ? this.#queue[0]! : Buffer.concat(this.#queue, this.#queuedBytes);
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#writing = true;
    this.#writeAll(data);
  }

  #writeAll(data: Buffer): void {
    this.#kind ??= this.#open();
    const socket = this.#socket;
    if (socket !== undefined) {
      socket.write(data, (error) => {
        if (error) return this.#fail();
        this.#writing = false;
        this.#next();
      });
      return;
    }
    write(this.#fd, data, 0, data.length, null, (error, written) => {
      if (error !== null && error.code !== "EAGAIN") {
        // A full disk (ENOSPC) or an I/O error may pass: drop this batch and keep trying later lines.
        // Anything else (EPIPE, EBADF...) means the log is gone for good.
        if (error.code === "ENOSPC" || error.code === "EIO" || error.code === "EDQUOT") {
          this.#dropped++;
          this.#writing = false;
          this.#next();
        } else {
          this.#fail();
        }
        return;
      }
      const rest = error === null ? data.subarray(written) : data;
      if (rest.length === 0) {
        this.#writing = false;
        this.#next();
        return;
      }
      // A full non-blocking pipe: wait a moment (without keeping the process alive) and go on.
      setTimeout(() => this.#writeAll(rest), error === null ? 0 : RETRY_MS).unref();
    });
  }

  #open(): "stream" | "file" {
    try {
      const stat = fstatSync(this.#fd);
      if (!stat.isFIFO() && !stat.isSocket()) return "file";
      const socket = new Socket({ fd: this.#fd, readable: false, writable: true });
      socket.on("error", () => this.#fail());
      // An idle log must not keep the process alive.
      socket.unref();
      this.#socket = socket;
      return "stream";
    } catch {
      return "file";
    }
  }

  #fail(): void {
    this.#failed = true;
    this.#writing = false;
    this.#dropped += this.#queue.length + 1;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#next();
  }
}
