// bcrypt checks on one worker thread: a flood of wrong passwords never holds the event loop.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** The worker's whole program; inline (not a file) so it runs the same from src/ under vitest and from dist/. */
const PROGRAM = `
import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const bcrypt = (await import(workerData)).default;
  parentPort.on("message", ({ id, password, hash }) => {
    let ok = false;
    try { ok = bcrypt.compareSync(password, hash); } catch { ok = false; }
    parentPort.postMessage({ id, ok });
  });
});`;

export class BcryptWorker {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, { resolve(ok: boolean): void; reject(error: Error): void }>();
  #nextId = 0;

  compare(password: string, hash: string): Promise<boolean> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise<boolean>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      // Between checks the thread must not keep the process alive; while one runs it must answer.
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, password, hash });
    });
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const bcrypt = pathToFileURL(createRequire(import.meta.url).resolve("bcryptjs")).href;
    const worker = new Worker(PROGRAM, { eval: true, workerData: bcrypt });
    worker.unref();
    worker.on("message", ({ id, ok }: { id: number; ok: boolean }) => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
      pending?.resolve(ok === true);
    });
    // A dead worker fails its checks (denied); the next check starts a new one.
    const dead = (): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(new Error("password check thread stopped"));
      this.#pending.clear();
    };
    worker.on("error", dead);
    worker.on("exit", dead);
    this.#worker = worker;
    return worker;
  }
}
