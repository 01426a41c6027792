// What each client address asked of the password checks lately, the order in which its next check is taken.

import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** An IPv4 address alone (a mapped one too); an IPv6 one by its /64, from which one host can take a new address per request. */
export function addressGroup(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "";
  if (isIP(address) === 0) return address;
  const ip = ipaddr.process(address);
  // The last four of the eight groups (and any zone) give way to the /64.
  return ip instanceof ipaddr.IPv6 ? ip.toNormalizedString().replace(/(:[^:]*){4}$/, "::/64") : ip.toString();
}

export interface Standing {
  failures: number;
  attempts: number;
}

/** Drops the oldest entry past `limit`: the Map's order is the order of last change. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as K);
}

/** Records expire `ttlMs` after their last change and the stalest go past `entries`, so many addresses cost bounded memory. */
export class AddressStandings {
  readonly #entries = new Map<string, Standing & { expires: number }>();
  readonly #now: () => number;
  readonly #bounds: { entries: number; ttlMs: number };

  constructor(now: () => number, { entries = 4096, ttlMs = 10 * 60_000 } = {}) {
    this.#now = now;
    this.#bounds = { entries, ttlMs };
  }

  get size(): number {
    return this.#entries.size;
  }

  of(group: string): Standing {
    const entry = this.#entries.get(group);
    if (entry !== undefined && entry.expires > this.#now()) return { failures: entry.failures, attempts: entry.attempts };
    this.#entries.delete(group);
    return { failures: 0, attempts: 0 };
  }

  attempted(group: string): void {
    this.#count(group, "attempts");
  }

  failed(group: string): void {
    this.#count(group, "failures");
  }

  /** A good password from the address: its earlier misses were a person's, not a flood's. */
  succeeded(group: string): void {
    this.#entries.delete(group);
  }

  #count(group: string, what: keyof Standing): void {
    const standing = this.of(group);
    standing[what] += 1;
    setNewest(this.#entries, group, { ...standing, expires: this.#now() + this.#bounds.ttlMs }, this.#bounds.entries);
  }
}
