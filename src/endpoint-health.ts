// The venue's health per endpoint and account, held in one place: counted in the exporter's metrics, logged once
// per change (at most a line a minute per kind), and each endpoint's last failure kept for the status page.

import { redact } from "./util/redact.js";
import type { Logger } from "pino";
import type { SelfMetrics } from "./metrics/self.js";
import type { EndpointOutcome } from "./scrape/result.js";
import type { FailureReason } from "./venue/errors.js";
import type { PagingAnomaly } from "./venue/snapshot.js";
import type { HistorySummary } from "./scrape/order-summary.js";

/** At most one log line per kind per window: a warning a thousand accounts repeat is one line a minute, not a thousand. */
export class LineRateLimit {
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #kinds = new Map<string, { writtenAt: number; held: number }>();

  /** `now` is monotonic: a wall clock stepped back would hold every line of a kind back until it caught up. */
  constructor(windowMs = 60_000, now: () => number = () => performance.now()) {
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** `undefined` holds a line of `kind` back; a number lets it through and says how many were held back since. */
  take(kind: string): number | undefined {
    const now = this.#now();
    const last = this.#kinds.get(kind);
    if (last !== undefined && now - last.writtenAt < this.#windowMs) {
      last.held += 1;
      return undefined;
    }
    this.#kinds.set(kind, { writtenAt: now, held: 0 });
    return last?.held ?? 0;
  }
}

export interface LastFailure {
  reason: FailureReason;
  httpStatus: number | undefined;
  /** The failure in our words, as the log writes it ("GET /v1/private/account-info: connection refused (ECONNREFUSED)"). */
  message: string | undefined;
  /** When the exporter saw the failure (epoch ms). */
  at: number;
}

const key = (endpoint: string, account: string | undefined) => `${endpoint}\u0000${account ?? ""}`;

function suppressed(held: number): { suppressed?: number } {
  return held > 0 ? { suppressed: held } : {};
}

export class EndpointHealth {
  /** Last known health per endpoint and account, and paging anomalies per account: a change is logged once, not every scrape. */
  readonly #healthy = new Map<string, boolean>();
  readonly #paging = new Map<string, string>();
  /** Remembered past the endpoint's recovery, so the page can say what last went wrong and when. */
  readonly #failures = new Map<string, LastFailure>();
  /** One line a minute per kind: an endpoint failing for one account usually fails for all, and so does bad paging. */
  readonly #lines = new LineRateLimit();
  readonly #logger: Logger;
  readonly #self: SelfMetrics;
  readonly #now: () => number;

  constructor(logger: Logger, self: SelfMetrics, now: () => number) {
    this.#logger = logger;
    this.#self = self;
    this.#now = now;
  }

  lastFailure(endpoint: string, account: string | undefined): LastFailure | undefined {
    return this.#failures.get(key(endpoint, account));
  }

  /** One endpoint call of a collection, once however many scrapes it serves, none included: a late one is a failure too. */
  record(o: EndpointOutcome): void {
    const at = key(o.endpoint, o.account);
    this.#self.upstreamCall(o.endpoint, o.ok ? undefined : o.reason);
    if (!o.ok && o.reason !== undefined) {
      this.#failures.set(at, { reason: o.reason, httpStatus: o.httpStatus, message: o.message === undefined ? undefined : redact(o.message), at: this.#now() });
    }
    const before = this.#healthy.get(at);
    this.#healthy.set(at, o.ok);
    // Logged on a change only: failing after anything but a failure, recovered after a failure.
    if (o.ok !== (before === false)) return;
    const held = this.#lines.take(`${o.endpoint}\u0000${o.ok ? "recovered" : (o.reason ?? "")}`);
    if (held === undefined) return;
    const fields = { endpoint: o.endpoint, account: o.account, ...suppressed(held) };
    if (o.ok) this.#logger.info({ ...fields }, "venue endpoint recovered");
    else this.#logger.warn({ ...fields, reason: o.reason, error: o.message }, "venue endpoint failing");
  }

  /** A history read's paging anomalies, as its collection ends. */
  paging(account: string, history: HistorySummary): void {
    const kinds = (Object.keys(history.anomalies) as PagingAnomaly[]).sort();
    for (const kind of kinds) this.#self.pagingAnomaly(kind, history.anomalies[kind]!);
    const now = kinds.join(",");
    const before = this.#paging.get(account) ?? "";
    this.#paging.set(account, now);
    if (now === before) return;
    // The anomalies are all in the counter above; only the lines are rate-limited.
    const held = this.#lines.take(now !== "" ? "paging misbehaves" : "paging behaves");
    if (held === undefined) return;
    if (now !== "") {
      this.#logger.warn({ account, anomalies: kinds, truncated: history.truncated, ...suppressed(held) }, "venue history paging misbehaves");
    } else {
      this.#logger.info({ account, ...suppressed(held) }, "venue history paging behaves again");
    }
  }
}
