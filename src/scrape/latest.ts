// The latest collection served per account and of the markets: what the status page reads.

import type { AccountResult, MarketsResult, ScrapeResult } from "./result.js";

export class LatestCollection {
  readonly #accounts = new Map<string, AccountResult>();
  #markets: MarketsResult | undefined;
  #collectedAt: number | undefined;

  /** A collection a scrape served; a probe's (one account) replaces only that account's. */
  served(result: ScrapeResult): void {
    // A scrape that gave up waiting has no data of its own: the page keeps the last real collection.
    for (const a of result.accounts) if (a.startedAt !== undefined) this.#accounts.set(a.account, a);
    if (result.markets !== undefined) {
      this.#markets = result.markets;
      this.#collectedAt = result.collectedAt;
    }
  }

  result(accounts: readonly string[]): ScrapeResult | undefined {
    const found = accounts.flatMap((name) => this.#accounts.get(name) ?? []);
    if (found.length === 0 && this.#markets === undefined) return undefined;
    const newest = Math.max(0, ...found.map((a) => a.startedAt ?? 0));
    return { collectedAt: this.#collectedAt ?? newest, accounts: found, markets: this.#markets, marketFamilies: true };
  }
}
