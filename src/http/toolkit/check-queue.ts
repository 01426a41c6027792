// Password checks one at a time on a bcrypt worker thread, the next from the address with the fewest failures lately.

import { isIP } from "node:net";
import { Worker } from "node:worker_threads";
import ipaddr from "ipaddr.js";

/** Checks waiting at most, one per address group: a waiting request holds a socket. Past it the lowest-ranked is refused. */
export const MAX_WAITING_CHECKS = 128;
/** A check's wait for its turn: Prometheus retries a 429 only at its next interval; this leaves half its default 10 s timeout. */
export const MAX_WAIT_MS = 5_000;

/** An IPv4 address alone (a mapped one too); an IPv6 one by its /64, from which one host can take a new address per request. */
export function addressGroup(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "";
  if (isIP(address) === 0) return address;
  const ip = ipaddr.process(address);
  return ip instanceof ipaddr.IPv6 ? ip.toNormalizedString().replace(/(:[^:]*){4}$/, "::/64") : ip.toString();
}

type Standing = Record<"failures" | "attempts", number>;

/** Drops the oldest entry past `limit`: the Map's order is the order of last change. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as K);
}

/** What each address group asked of the checks lately: records expire `ttlMs` after their last change, the stalest go past `entries`. */
export class AddressStandings {
  readonly #entries = new Map<string, Standing & { expires: number }>();

  constructor(
    readonly now: () => number,
    readonly bounds = { entries: 4096, ttlMs: 10 * 60_000 },
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  of(group: string): Standing {
    const entry = this.#entries.get(group);
    if (entry !== undefined && entry.expires > this.now()) return { failures: entry.failures, attempts: entry.attempts };
    this.#entries.delete(group);
    return { failures: 0, attempts: 0 };
  }

  add(group: string, what: keyof Standing): void {
    const standing = this.of(group);
    standing[what] += 1;
    setNewest(this.#entries, group, { ...standing, expires: this.now() + this.bounds.ttlMs }, this.bounds.entries);
  }

  /** A good password from the address: its earlier misses were a person's, not a flood's. */
  succeeded(group: string): void {
    this.#entries.delete(group);
  }
}

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

export class CheckQueue<T> {
  readonly #waiting = new Set<Waiting<T>>();
  readonly #busy = new Set<string>();
  #running = false;
  #arrivals = 0;

  constructor(readonly standings: AddressStandings) {}

  submit(group: string, run: () => Promise<T>): Promise<T> {
    this.standings.add(group, "attempts");
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

  /** Fewest recent failures, then fewest attempts, then the newest: a scraper must not queue behind a flood's first wave. */
  #ranked(...also: Waiting<T>[]): Waiting<T>[] {
    const keyed = [...this.#waiting, ...also].map((entry) => ({ entry, ...this.standings.of(entry.group) }));
    return keyed.sort((a, b) => a.failures - b.failures || a.attempts - b.attempts || b.entry.arrival - a.entry.arrival).map(({ entry }) => entry);
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

/** The worker's whole program; inline (not a file) so it runs the same from src/ under vitest and from dist/. */
const PROGRAM = `import("node:worker_threads").then(async ({ parentPort, workerData }) => {
  const bcrypt = (await import(workerData)).default;
  const check = ({ password, hash }) => { try { return bcrypt.compareSync(password, hash); } catch { return false; } };
  parentPort.on("message", (message) => parentPort.postMessage(check(message)));
});`;

/** One check at a time, as the check queue runs them. */
export class BcryptWorker {
  #worker: Worker | undefined;
  #pending: { resolve(ok: boolean): void; reject(error: Error): void } | undefined;

  readonly compare = (password: string, hash: string): Promise<boolean> => {
    const worker = this.#start();
    return new Promise<boolean>((resolve, reject) => {
      this.#pending = { resolve, reject };
      // Between checks the thread must not keep the process alive; while one runs it must answer.
      worker.ref();
      worker.postMessage({ password, hash });
    });
  };

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const bcrypt = import.meta.resolve("bcryptjs");
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
