// bcrypt checks on one worker thread: a flood of wrong passwords never holds the event loop.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** The worker's whole program; inline (not a file) so it runs the same from src/ under vitest and from dist/. */
const PROGRAM = `
import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const bcrypt = (await import(workerData)).default;
  parentPort.on("message", ({ password, hash }) => {
    let ok = false;
    try { ok = bcrypt.compareSync(password, hash); } catch { ok = false; }
    parentPort.postMessage(ok);
  });
});`;

/** One check at a time, as the check queue runs them. */
export class BcryptWorker {
  #worker: Worker | undefined;
  #pending: { resolve(ok: boolean): void; reject(error: Error): void } | undefined;

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.#start();
    return new Promise<boolean>((resolve, reject) => {
      this.#pending = { resolve, reject };
      // Between checks the thread must not keep the process alive; while one runs it must answer.
      worker.ref();
      worker.postMessage({ password, hash });
    });
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const bcrypt = pathToFileURL(createRequire(import.meta.url).resolve("bcryptjs")).href;
    const worker = new Worker(PROGRAM, { eval: true, workerData: bcrypt });
    worker.unref();
    worker.on("message", (ok: unknown) => {
      worker.unref();
      this.#pending?.resolve(ok === true);
      this.#pending = undefined;
    });
    // A dead worker fails its check (denied); the next check starts a new one.
    const dead = (): void => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#pending?.reject(new Error("password check thread stopped"));
      this.#pending = undefined;
    };
    worker.on("error", dead);
    worker.on("exit", dead);
    this.#worker = worker;
    return worker;
  }
}
