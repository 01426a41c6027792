// Remembers, per request, the last body and what it was read into: an unchanged body is not parsed
// or validated again, and keeps its object identity so its rendered metrics can be reused too.

interface Entry {
  text: string;
  value: unknown;
  /** Invalid fields the body had, replayed on every reuse so the counters stay per scrape. */
  invalid: Array<[field: string, count: number]>;
}

export class BodyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #enabled: boolean;

  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  /**
   * The value read from `text` for `key`: the remembered one when the text is unchanged, else
   * `read(text, report)`. `invalid` receives the body's invalid fields either way.
   */
  async read<T>(
    key: string,
    text: string,
    invalid: (field: string) => void,
    read: (text: string, report: (field: string) => void) => Promise<T>,
  ): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.text === text) {
      for (const [field, count] of entry.invalid) for (let i = 0; i < count; i++) invalid(field);
      return entry.value as T;
    }
    const counts = new Map<string, number>();
    const value = await read(text, (field) => {
      counts.set(field, (counts.get(field) ?? 0) + 1);
      invalid(field);
    });
    if (this.#enabled) this.#entries.set(key, { text, value, invalid: [...counts] });
    return value;
  }

  /** Forgets a request whose answer was not a good body, so a later good one is read afresh. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
