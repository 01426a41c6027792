// The venue's health per endpoint and account, held in one place: counted in the exporter's metrics, logged once
// per change (at most a line a minute per kind), and each endpoint's last failure kept for the status page.

import type { Redactor } from "./util/redact.js";
import type { Logger } from "pino";
import type { SelfMetrics } from "./metrics/self.js";
import type { EndpointOutcome } from "./scrape/result.js";
import type { PagingAnomaly } from "./venue/snapshot.js";
import type { HistorySummary } from "./scrape/result.js";
import type { AccountStore, LastFailure } from "./scrape/account-store.js";

/** At most one log line per kind per window: a warning a thousand accounts repeat is one line a minute, not a thousand. */
export class LineRateLimit {
  readonly #kinds = new Map<string, { writtenAt: number; held: number }>();

  /** `now` is monotonic: a wall clock stepped back would hold every line of a kind back until it caught up. */
  constructor(
    readonly windowMs = 60_000,
    readonly now: () => number = () => performance.now(),
  ) {}

  /** `undefined` holds a line of `kind` back; a number lets it through and says how many were held back since. */
  take(kind: string): number | undefined {
    const now = this.now();
    const last = this.#kinds.get(kind);
    if (last !== undefined && now - last.writtenAt < this.windowMs) {
      last.held += 1;
      return undefined;
    }
    this.#kinds.set(kind, { writtenAt: now, held: 0 });
    return last?.held ?? 0;
  }
}

function suppressed(held: number): { suppressed?: number } {
  return held > 0 ? { suppressed: held } : {};
}

export class EndpointHealth {
  /** One line a minute per kind: an endpoint failing for one account usually fails for all, and so does bad paging. */
  readonly #lines = new LineRateLimit();

  /** `store` keeps each endpoint's health in its account's entry; a failure's message is kept for the page through `redactor`, the process's one. */
  constructor(
    readonly store: AccountStore,
    readonly logger: Logger,
    readonly self: SelfMetrics,
    readonly now: () => number,
    readonly redactor: Redactor,
  ) {}

  #entry(account: string | undefined) {
    return account === undefined ? this.store.markets : this.store.get(account);
  }

  lastFailure(endpoint: string, account: string | undefined): LastFailure | undefined {
    return this.#entry(account)?.failures.get(endpoint);
  }

  /** One endpoint call of a collection, once however many scrapes it serves, none included: a late one is a failure too. */
  record(o: EndpointOutcome): void {
    this.self.upstreamCall(o.endpoint, o.ok ? undefined : o.reason);
    // An account a reload removed while its collection ran has no entry: its outcome is counted, not kept.
    const entry = this.#entry(o.account);
    if (!o.ok && o.reason !== undefined) {
      const message = o.message === undefined ? undefined : this.redactor.redact(o.message);
      entry?.failures.set(o.endpoint, { reason: o.reason, httpStatus: o.httpStatus, message, at: this.now() });
    }
    const before = entry?.healthy.get(o.endpoint);
    entry?.healthy.set(o.endpoint, o.ok);
    // Logged on a change only: failing after anything but a failure, recovered after a failure.
    if (o.ok !== (before === false)) return;
    const held = this.#lines.take(`${o.endpoint}\u0000${o.ok ? "recovered" : (o.reason ?? "")}`);
    if (held === undefined) return;
    const fields = { endpoint: o.endpoint, account: o.account, ...suppressed(held) };
    if (o.ok) this.logger.info({ ...fields }, "venue endpoint recovered");
    else this.logger.warn({ ...fields, reason: o.reason, error: o.message }, "venue endpoint failing");
  }

  /** A history read's paging anomalies, as its collection ends. */
  paging(account: string, history: HistorySummary): void {
    const kinds = (Object.keys(history.anomalies) as PagingAnomaly[]).sort();
    for (const kind of kinds) this.self.pagingAnomaly(kind, history.anomalies[kind]!);
    const now = kinds.join(",");
    const entry = this.store.get(account);
    if (entry === undefined || now === entry.paging) return;
    entry.paging = now;
    // The anomalies are all in the counter above; only the lines are rate-limited.
    const held = this.#lines.take(now !== "" ? "paging misbehaves" : "paging behaves");
    if (held === undefined) return;
    if (now !== "") this.logger.warn({ account, anomalies: kinds, truncated: history.truncated, ...suppressed(held) }, "venue history paging misbehaves");
    else this.logger.info({ account, ...suppressed(held) }, "venue history paging behaves again");
  }
}
