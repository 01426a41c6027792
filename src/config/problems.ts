// Collects every configuration problem instead of stopping at the first, and suggests the key meant.

import { distance } from "fastest-levenshtein";
import { ConfigError } from "./errors.js";

/** Where a problem sorts: its source, then its place there; a file's place is found only if a problem is reported. */
export type Order = [source: number, position: number | (() => number)];

export interface Problem {
  /** flag, variable or key path the line starts with. */
  where: string;
  text: string;
  /** Sorting: flags first, then variables in table order, then the file in file order. */
  order: Order;
  /** For an unknown key: the full path of the known key it was probably meant to be. */
  meant?: string | undefined;
}

export const FROM_FLAG = 0;
export const FROM_ENV = 1;
export const FROM_FILE = 2;

/** The known name closest to `name`, when it is close enough to be the one meant. */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  // The sort is stable: of equally near names, the first known wins.
  const [best] = [...known].map((candidate) => ({ candidate, d: distance(lower, candidate.toLowerCase()) })).sort((x, y) => x.d - y.d);
  // A third of the name may be wrong: colateral_ids -> collateral_ids, not base_url -> name.
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.candidate : undefined;
}

/** The value of `words` that `given` was probably meant as, when no other is as near: between equals a guess misleads. */
export function meantWord(given: string, words: readonly string[]): string | undefined {
  const guess = nearest(given, words);
  if (guess === undefined) return undefined;
  const far = (w: string) => distance(given.toLowerCase(), w.toLowerCase());
  return words.filter((w) => far(w) === far(guess)).length === 1 ? guess : undefined;
}

export class Problems {
  readonly #list: Problem[] = [];
  /** Names nobody reads, each probably meant as another: shown only in place of that one's "required". */
  readonly #misspelt: { where: string; text: string; meant: string }[] = [];

  add(where: string, text: string, order: Order): void {
    this.#list.push({ where, text, order });
  }

  unknownKey(label: string, parent: string, key: string, known: Iterable<string>, order: Order): void {
    const join = (name: string) => `${label}${parent === "" ? name : `${parent}.${name}`}`;
    const guess = nearest(key, known);
    this.#list.push({
      where: join(key),
      text: guess === undefined ? "unknown key" : `unknown key (did you mean ${guess}?)`,
      order,
      meant: guess === undefined ? undefined : join(guess),
    });
  }

  /** Runs `step`; a ConfigError it throws becomes problems here, and `fallback` is returned instead. */
  collect<T>(order: Order, step: () => T, fallback: T): T {
    try {
      return step();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const line of error.problems) {
        const at = line.indexOf(": ");
        this.add(at < 0 ? line : line.slice(0, at), at < 0 ? "invalid" : line.slice(at + 2), order);
      }
      return fallback;
    }
  }

  misspelt(where: string, text: string, meant: string): void {
    this.#misspelt.push({ where, text, meant });
  }

  get size(): number {
    return this.#list.length;
  }

  /** Sorted; a "required" for a key an unknown key was meant as is dropped: the unknown key is the real mistake. */
  throwIfAny(): void {
    if (this.#list.length === 0) return;
    const meant = new Set(this.#list.map((p) => p.meant));
    // "TRADING_API_KEY or TRADING_API_KEY_FILE: required" is what TRADING_API_KEY_FIEL was meant to be.
    const isMeant = (p: Problem, name: string | undefined) => p.where.split(" or ").some((part) => part === name);
    const kept = this.#list.flatMap((p): Problem[] => {
      if (!p.text.startsWith("required")) return [p];
      if (meant.has(p.where)) return [];
      const typos = this.#misspelt.filter((m) => isMeant(p, m.meant));
      return typos.length === 0 ? [p] : typos.map((m) => ({ where: m.where, text: m.text, order: p.order }));
    });
    const place = ({ order: [, at] }: Problem) => (typeof at === "number" ? at : at());
    kept.sort((a, b) => a.order[0] - b.order[0] || place(a) - place(b));
    throw new ConfigError(kept.map((p) => `${p.where}: ${p.text}`));
  }
}
