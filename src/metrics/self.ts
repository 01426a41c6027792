// The exporter's own metrics; a counter with known label values starts at 0 for each, so its first event shows.

import { Counter, Gauge, Registry, collectDefaultMetrics } from "@prometheus-io/client";
import type { OutcomeFamily } from "../scrape/order-tally.js";
import { REVISION, VERSION } from "../version.js";
import { ENDPOINTS, type Endpoint } from "../venue/endpoints.js";
import { FAILURE_REASONS, type FailureReason } from "../venue/errors.js";
import { UNSET_PREFIX } from "../venue/fields.js";
import { ACCOUNT_INFO_FIELDS } from "../venue/read-account.js";
import { MARKET_FIELDS } from "../venue/read-markets.js";
import { HISTORY_ORDER_FIELDS, ORDER_FIELDS } from "../venue/read-orders.js";
import { PAGING_ANOMALIES, type PagingAnomaly } from "../venue/snapshot.js";
import { metricName } from "./family.js";

/** Per endpoint, every `field` label invalid_fields_total can carry (a bounded set), from the readers' own lists. */
export const KNOWN_INVALID_FIELDS: Readonly<Record<Endpoint, readonly string[]>> = {
  account_info: ACCOUNT_INFO_FIELDS,
  orders_active: ORDER_FIELDS,
  orders_history: HISTORY_ORDER_FIELDS,
  markets: MARKET_FIELDS,
};

/** Why the exporter's HTTP server closed a connection early, as the HELP of http_connections_dropped_total says. */
export const DROP_REASONS = ["cap", "idle", "read_timeout", "refused"] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** The Prometheus client's defaults dropped from the exposition (see the constructor). */
export const NONCONFORMING_DEFAULTS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
  "nodejs_eventloop_utilization_histogram",
  "nodejs_eventloop_utilization_summary",
];

/** The `family` label of trading_exporter_order_outcomes_folded_total. */
const OUTCOME_FAMILY_NAMES: Record<OutcomeFamily, string> = { orders: metricName("orders_total"), rejections: metricName("order_rejections_total") };

export class SelfMetrics {
  readonly registry = new Registry();

  #counter<L extends string = never>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return new Counter<L>({ name: metricName("exporter", name), help, labelNames, registers: [this.registry] });
  }

  #gauge<L extends string = never>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
    return new Gauge<L>({ name: metricName("exporter", name), help, labelNames, registers: [this.registry] });
  }

  readonly requests = this.#counter("upstream_requests_total", 'Requests sent to the venue, by endpoint and HTTP status ("error" when none came back).', [
    "endpoint",
    "code",
  ]);
  readonly #errors = this.#counter(
    "upstream_errors_total",
    "Failed endpoint calls, by endpoint and reason (one per failed collection; scrapes sharing a collection count it once).",
    ["endpoint", "reason"],
  );
  readonly #calls = this.#counter(
    "upstream_calls_total",
    "Endpoint calls, by endpoint (one per collection as it ends, late ones included; the denominator of upstream_errors_total).",
    ["endpoint"],
  );
  readonly #invalidFields = this.#counter(
    "invalid_fields_total",
    "Fields the venue sent missing or not as a finite number or expected value, by endpoint and field.",
    ["endpoint", "field"],
  );
  readonly #unsetFields = this.#counter(
    "unset_fields_total",
    "Fields the venue left unset (absent, null, 0 or negative), by endpoint and field: an order's time leaves it out of oldest/newest figures only, a position's liquidation price its distance only.",
    ["endpoint", "field"],
  );
  readonly seriesDropped = this.#counter("series_dropped_total", "Series left out of scrapes because they were over the configured series cap (a count).");
  readonly seriesDuplicated = this.#counter(
    "series_duplicates_dropped_total",
    "Series left out because an earlier series of the same family had the same label set once the venue's strings were made label values (the first one is kept; a count).",
  );
  readonly #outcomesFolded = this.#counter(
    "order_outcomes_folded_total",
    'Orders counted under market_id, status or code "other" because their account already held scrape.max_order_outcome_series order-outcome series, by family (a count).',
    ["family"],
  );
  readonly #pagingAnomalies = this.#counter(
    "history_paging_anomalies_total",
    "History pages the venue answered against its paging contract, by kind: no_progress (no new order id), overlap (ids already read), more_than_asked (longer than the limit).",
    ["kind"],
  );
  readonly scrapesRejected = this.#counter(
    "scrapes_rejected_total",
    "Scrapes answered 503 because no answer slot of --web.max-requests freed within their deadline; waiting for the venue takes none (a count).",
  );
  readonly #connectionsOpen = this.#gauge(
    "http_connections_open",
    "Connections to the exporter's own HTTP server now open, TLS handshakes included (a count).",
  );
  readonly #connectionsDropped = this.#counter(
    "http_connections_dropped_total",
    "Connections to the exporter's own HTTP server closed early, by reason: cap (refused at the cap, none idle), idle (closed to admit a new one), read_timeout, refused (after a 401, 403 or 429) (a count).",
    ["reason"],
  );
  readonly #writeTimeouts = this.#counter(
    "http_write_timeouts_total",
    "Connections to the exporter's own HTTP server closed because a response was not fully written within web.write_timeout_seconds of its request (a count).",
  );
  readonly #rateLimited = this.#counter(
    "http_requests_rate_limited_total",
    "Requests to the exporter's own HTTP server answered 429 because the web config's rate_limit was exceeded (a count).",
  );
  readonly venueConnectionWaits = this.#counter(
    "venue_connection_waits_total",
    "Requests to the venue that waited for a connection because venue.max_connections to its origin were all busy (a count).",
  );
  readonly venueBudget = this.#gauge(
    "venue_request_budget_per_second",
    "Requests a second the exporter may send to the venue's origin (venue.max_requests_per_second; 0: no budget). Its use: rate(trading_exporter_upstream_requests_total[1m]) over it.",
  );
  readonly #budgetWaits = this.#counter(
    "venue_budget_waits_total",
    "Requests to the venue that waited for their turn in venue.max_requests_per_second (a count).",
  );
  readonly #budgetWaitSeconds = this.#counter(
    "venue_budget_wait_seconds_total",
    "Seconds requests to the venue waited for their turn in venue.max_requests_per_second, all together.",
  );
  readonly #reloadOk = this.#gauge("config_last_reload_successful", "Whether the last configuration reload succeeded (1) or failed (0); 1 after start-up.");
  readonly #reloadAt = this.#gauge(
    "config_last_reload_success_timestamp_seconds",
    "Time of the last successful configuration load, in seconds since the epoch.",
  );

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // `promtool check metrics` fails these: gauges with a counter's suffix, and event-loop utilization named after its type.
      for (const name of NONCONFORMING_DEFAULTS) this.registry.removeSingleMetric(name);
    }
    const build = { version: VERSION, revision: REVISION, nodejs_version: process.version };
    this.#gauge("build_info", "Build of the exporter as labels; the value is always 1.", ["version", "revision", "nodejs_version"]).set(build, 1);
    for (const endpoint of ENDPOINTS) for (const field of KNOWN_INVALID_FIELDS[endpoint]) this.#invalidFields.inc({ endpoint, field }, 0);
    for (const endpoint of ["orders_active", "orders_history"] as const) this.#unsetFields.inc({ endpoint, field: "createdAt" }, 0);
    this.#unsetFields.inc({ endpoint: "account_info", field: "positions[].liquidationPrice" }, 0);
    for (const family of Object.values(OUTCOME_FAMILY_NAMES)) this.#outcomesFolded.inc({ family }, 0);
    for (const kind of PAGING_ANOMALIES) this.#pagingAnomalies.inc({ kind }, 0);
    for (const reason of DROP_REASONS) this.#connectionsDropped.inc({ reason }, 0);
    this.configLoaded(true);
    for (const endpoint of ENDPOINTS) {
      this.#calls.inc({ endpoint }, 0);
      for (const reason of FAILURE_REASONS) this.#errors.inc({ endpoint, reason }, 0);
    }
  }

  /** One endpoint call of a collection as it ended: `reason` when it failed. */
  upstreamCall(endpoint: Endpoint, reason: FailureReason | undefined): void {
    this.#calls.inc({ endpoint });
    if (reason !== undefined) this.#errors.inc({ endpoint, reason });
  }

  venueBudgetWaited(ms: number): void {
    this.#budgetWaits.inc();
    this.#budgetWaitSeconds.inc(ms / 1000);
  }

  configLoaded(ok: boolean): void {
    this.#reloadOk.set(ok ? 1 : 0);
    if (ok) this.#reloadAt.set(Date.now() / 1000);
  }

  orderOutcomesFolded(family: OutcomeFamily, orders: number): void {
    if (orders > 0) this.#outcomesFolded.inc({ family: OUTCOME_FAMILY_NAMES[family] }, orders);
  }

  pagingAnomaly(kind: PagingAnomaly, n: number): void {
    if (n > 0) this.#pagingAnomalies.inc({ kind }, n);
  }

  readonly connections = {
    opened: (): void => this.#connectionsOpen.inc(),
    closed: (): void => this.#connectionsOpen.dec(),
    dropped: (reason: DropReason): void => this.#connectionsDropped.inc({ reason }),
    writeTimedOut: (): void => this.#writeTimeouts.inc(),
  };

  readonly guards = { rateLimited: (): void => this.#rateLimited.inc() };

  invalidFields(endpoint: Endpoint, counts: Map<string, number>): void {
    for (const [field, n] of counts) {
      if (field.startsWith(UNSET_PREFIX)) this.#unsetFields.inc({ endpoint, field: field.slice(UNSET_PREFIX.length) }, n);
      else this.#invalidFields.inc({ endpoint, field }, n);
    }
  }
}
