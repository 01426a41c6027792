// Configuration problems, every one collected and sorted: one line each, naming the flag, variable or key (never its value).

import { distance } from "fastest-levenshtein";

/** At most this many problems are listed; a file with more says how many were left out. */
export const MAX_PROBLEMS = 20;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** One line per problem, in the order a reader meets them (flags, environment, then file order). */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : problems.length === 0 ? ["invalid"] : [...problems];
    const shown = list.length > MAX_PROBLEMS ? [...list.slice(0, MAX_PROBLEMS), `... and ${list.length - MAX_PROBLEMS} more problems`] : list;
    super(shown.join("\n"));
    this.problems = shown;
  }
}

export type KeyPath = ReadonlyArray<PropertyKey>;

/** Where a problem sorts: a number (a flag's place in the table, a variable's ENV_ORDER past it) before any key path of the file. */
export type Order = number | KeyPath;
export const ENV_ORDER = 1000;

interface Problem {
  where: string;
  text: string;
  order: Order;
  /** For an unknown name: the known one it was probably meant as; a stand-in is shown only in place of that one's "required". */
  meant?: string | undefined;
  standIn?: boolean;
}

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
  const far = (w: string) => distance(given.toLowerCase(), w.toLowerCase());
  return guess !== undefined && words.filter((w) => far(w) === far(guess)).length === 1 ? guess : undefined;
}

export function keyPath(path: KeyPath): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out === "" ? String(part) : `${out}.${String(part)}`), "");
}

export function valueAt(data: unknown, path: KeyPath): unknown {
  return path.reduce<unknown>((value, key) => (value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined), data);
}

/** Offsets of every key path in a parsed document, in document order (YAML keeps the file's order). */
function documentOrder(data: unknown): (path: KeyPath) => number {
  const order = new Map<string, number>();
  // Each path's text grown from its parent's, as keyPath writes it: a large file's walk stays linear in its keys.
  const walk = (value: unknown, at: string): void => {
    order.set(at, order.size);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}[${i}]`));
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, at === "" ? k : `${at}.${k}`);
  };
  walk(data, "");
  // A missing key sorts where its nearest present parent is.
  return (path) => path.map((_, n) => order.get(keyPath(path.slice(0, path.length - n)))).find((at) => at !== undefined) ?? 0;
}

export class Problems {
  readonly #list: Problem[] = [];

  /** `file` is the parsed file whose key paths problems may name: walked for their order only if one is reported. */
  constructor(readonly file?: unknown) {}

  add(where: string, text: string, order: Order, meant?: string): void {
    this.#list.push({ where, text, order, meant });
  }

  /** `key` under `parent` (a key path, "" at the top), with the known key probably meant; `label` starts the line. */
  unknownKey(parent: string, key: string, known: Iterable<string>, order: Order, label = ""): void {
    const join = (name: string) => `${label}${parent === "" ? name : `${parent}.${name}`}`;
    const guess = nearest(key, known);
    this.add(join(key), guess === undefined ? "unknown key" : `unknown key (did you mean ${guess}?)`, order, guess && join(guess));
  }

  /** Runs `step`; a ConfigError it throws becomes problems here, and `fallback` is returned instead. */
  collect<T>(order: Order, step: () => T, fallback: T): T {
    try {
      return step();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const [where = "", text = "invalid"] of error.problems.map((line) => line.split(/: (.*)/s))) this.add(where, text, order);
      return fallback;
    }
  }

  misspelt(where: string, text: string, meant: string): void {
    this.#list.push({ where, text, order: 0, meant, standIn: true });
  }

  get size(): number {
    return this.#list.length;
  }

  /** Sorted; a "required" for a name an unknown one was meant as gives way to it, the real mistake. */
  throwIfAny(): void {
    // Looked up by name ("TRADING_API_KEY or …_FILE: required" is what TRADING_API_KEY_FIEL meant): 20,000 accounts' problems in one pass.
    const meantBy = Map.groupBy(this.#list, (q) => q.meant);
    const meaning = (p: Problem) => p.where.split(" or ").flatMap((name) => meantBy.get(name) ?? []);
    const kept = this.#list.flatMap((p): Problem[] => {
      if (p.standIn) return [];
      if (!p.text.startsWith("required") || meaning(p).length === 0) return [p];
      return meaning(p).flatMap((q) => (q.standIn ? [{ ...q, order: p.order, standIn: false }] : []));
    });
    if (kept.length === 0) return;
    const place = documentOrder(kept.some((p) => typeof p.order !== "number") ? this.file : undefined);
    const rank = ({ order }: Problem) => (typeof order === "number" ? order - 2 * ENV_ORDER : place(order));
    kept.sort((a, b) => rank(a) - rank(b));
    throw new ConfigError(kept.map((p) => `${p.where}: ${p.text}`));
  }
}
