// What each client address asked of the password checks lately, the order in which its next check is taken.

import { isIPv6 } from "node:net";

/** Addresses remembered at most, and for how long after their last check: an attacker's many addresses cost bounded memory. */
export const ADDRESS_ENTRIES = 4096;
export const ADDRESS_TTL_MS = 10 * 60_000;

/**
 * The group a client address counts in: an IPv4 address alone (an IPv4-mapped IPv6 one as its IPv4
 * address), an IPv6 address by its /64, since one host or site is handed a whole /64 and could take a
 * new address from it for every request.
 */
export function addressGroup(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("%", 1)[0]!.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}

/** An address's recent record: checks that failed, and checks it asked for (run, waiting or refused). */
export interface Standing {
  failures: number;
  attempts: number;
}

interface Entry extends Standing {
  expires: number;
}

/** The record of each address group, expiring ADDRESS_TTL_MS after its last change; the oldest go first past `entries`. */
export class AddressStandings {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #limit: number;
  readonly #ttlMs: number;

  constructor(now: () => number, options: { entries?: number; ttlMs?: number } = {}) {
    this.#now = now;
    this.#limit = options.entries ?? ADDRESS_ENTRIES;
    this.#ttlMs = options.ttlMs ?? ADDRESS_TTL_MS;
  }

  get size(): number {
    return this.#entries.size;
  }

  of(group: string): Standing {
    const entry = this.#entries.get(group);
    if (entry === undefined) return { failures: 0, attempts: 0 };
    if (entry.expires > this.#now()) return { failures: entry.failures, attempts: entry.attempts };
    this.#entries.delete(group);
    return { failures: 0, attempts: 0 };
  }

  attempted(group: string): void {
    const { failures, attempts } = this.of(group);
    this.#set(group, { failures, attempts: attempts + 1, expires: 0 });
  }

  failed(group: string): void {
    const { failures, attempts } = this.of(group);
    this.#set(group, { failures: failures + 1, attempts, expires: 0 });
  }

  /** A good password from the address: its earlier misses were a person's, not a flood's. */
  succeeded(group: string): void {
    this.#entries.delete(group);
  }

  #set(group: string, entry: Entry): void {
    // Re-inserted, so the Map's order is the order of last change and the first entry is the stalest.
    this.#entries.delete(group);
    this.#entries.set(group, { ...entry, expires: this.#now() + this.#ttlMs });
    if (this.#entries.size > this.#limit) {
      const stalest = this.#entries.keys().next();
      if (stalest.done !== true) this.#entries.delete(stalest.value);
    }
  }
}
