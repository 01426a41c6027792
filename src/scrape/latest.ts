// The latest collection served per account and of the markets, and each endpoint's last failure: what the status page reads.

import type { AccountResult, EndpointOutcome, MarketsResult, ScrapeResult } from "./result.js";
import type { FailureReason } from "../venue/errors.js";

export interface LastFailure {
  reason: FailureReason;
  /** The venue's HTTP status, when the failure was one. */
  httpStatus: number | undefined;
  /** When the exporter saw the failure (epoch ms). */
  at: number;
}

function failureKey(endpoint: string, account: string | undefined): string {
  return `${endpoint}\u0000${account ?? ""}`;
}

export class LatestCollection {
  readonly #accounts = new Map<string, AccountResult>();
  #markets: MarketsResult | undefined;
  #collectedAt: number | undefined;
  readonly #failures = new Map<string, LastFailure>();

  /** A collection a scrape served; a probe's (one account) replaces only that account's. */
  served(result: ScrapeResult): void {
    // A scrape that gave up waiting has no data of its own: the page keeps the last real collection.
    for (const a of result.accounts) if (a.startedAt !== undefined) this.#accounts.set(a.account, a);
    if (result.markets !== undefined) {
      this.#markets = result.markets;
      this.#collectedAt = result.collectedAt;
    }
  }

  /** Remembered past the endpoint's recovery, so the page can say what last went wrong and when. */
  outcome(o: EndpointOutcome, at: number): void {
    if (!o.ok && o.reason !== undefined) this.#failures.set(failureKey(o.endpoint, o.account), { reason: o.reason, httpStatus: o.httpStatus, at });
  }

  lastFailure(endpoint: string, account: string | undefined): LastFailure | undefined {
    return this.#failures.get(failureKey(endpoint, account));
  }

  result(accounts: readonly string[]): ScrapeResult | undefined {
    const found = accounts.flatMap((name) => this.#accounts.get(name) ?? []);
    if (found.length === 0 && this.#markets === undefined) return undefined;
    const newest = Math.max(0, ...found.map((a) => a.startedAt ?? 0));
    return { collectedAt: this.#collectedAt ?? newest, accounts: found, markets: this.#markets, marketFamilies: true };
  }
}
