// The exporter's venue series computed the plain way, straight from JSON.parse's output, with what the exporter
// must do at its plainest: every venue string it renders redacted and made a valid label value, a number read as the
// exporter reads it (else NaN: not given), sums exact. What the benchmark's bound renders with a
// template (leaving NaN out) and its naive peer sets as gauges.

import { COLLECTORS } from "../src/collectors/index.js";
import { THRESHOLD_KEYS, THRESHOLDS } from "../src/config/threshold-table.js";
import { ExactSum } from "../src/util/decimal.js";
import { wellFormedLabel } from "../src/util/label-text.js";
import { Redactor } from "../src/util/redact.js";
import { VenueFields } from "../src/venue/fields.js";
import { MARKET_SETTINGS } from "../src/venue/snapshot.js";

type Raw = Record<string, unknown>;

export interface SeriesFamily {
  name: string;
  help: string;
  type: "gauge" | "counter";
  labelNames: string[];
}

/** Emits one series: the family's index in FAMILIES, its label values in labelNames order, its value. */
export type Emit = (family: number, labels: string[], value: number) => void;

/** The exporter's families as its collectors declare them (name, help, type, labels): the bound renders the same ones. */
export const FAMILIES: SeriesFamily[] = COLLECTORS.flatMap((c) => c.collect({ collectedAt: 0, accounts: [], markets: undefined, marketFamilies: true })).map(
  (f) => ({ name: f.name, help: f.help, type: f.type, labelNames: [...f.labelNames] }),
);
const at = (name: string): number => {
  const i = FAMILIES.findIndex((x) => x.name === `trading_${name}`);
  if (i < 0) throw new Error(`the exporter has no family trading_${name}`);
  return i;
};
/** The exporter's names are snake case: `tickSize` becomes `tick_size`. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const ACCOUNT_FIELDS = [
  ["collateralBalance", "account_collateral_balance"],
  ["availableMargin", "account_available_margin"],
  ["totalInvested", "account_total_invested"],
  ["totalMargin", "account_total_margin"],
  ["totalUnrealizedPnl", "account_unrealized_pnl"],
].map(([field, family]) => [field!, at(family!)] as const);
const POSITION_FIELDS = [
  ["size", "position_size"],
  ["avgExecutionPrice", "position_avg_execution_price"],
  ["marginAmount", "position_margin"],
  ["borrowedAmount", "position_borrowed"],
  ["leverage", "position_leverage"],
  ["realizedPnl", "position_realized_pnl"],
  ["liquidationPrice", "position_liquidation_price"],
  ["maintenanceMargin", "position_maintenance_margin"],
].map(([field, family]) => [field!, at(family!)] as const);
const ACTIVE_SUMS = ["quantity", "quantityFilled", "quantityLocked"] as const;
const FLAGS = [
  ["expiration", "isPendingExpiration"],
  ["cancellation", "isPendingCancellation"],
  ["rejection", "isPendingRejection"],
] as const;

const I = {
  success: at("scrape_success"),
  duration: at("scrape_duration_seconds"),
  up: at("up"),
  collectedAt: at("collection_timestamp_seconds"),
  threshold: at("account_alert_threshold"),
  thresholdSeconds: at("account_alert_threshold_seconds"),
  positions: at("account_positions"),
  usage: at("account_margin_usage_ratio"),
  maintenance: at("account_maintenance_margin"),
  ratio: at("account_margin_ratio"),
  notional: at("position_notional"),
  distance: at("position_liquidation_distance_ratio"),
  requirement: at("position_initial_margin_requirement"),
  limit: at("position_size_limit_ratio"),
  active: at("active_orders"),
  activeSums: ACTIVE_SUMS.map((x) => at(`active_orders_${snake(x)}`)),
  activeNotional: at("active_orders_notional"),
  pending: at("active_orders_pending"),
  oldest: at("active_orders_oldest_created_timestamp_seconds"),
  truncated: at("active_orders_truncated"),
  history: at("order_history_orders"),
  rejections: at("order_history_rejections"),
  last: at("order_history_last_created_timestamp_seconds"),
  fetched: at("order_history_fetched_orders"),
  historyTruncated: at("order_history_truncated"),
  outcomes: at("orders_total"),
  outcomeRejections: at("order_rejections_total"),
  tracked: at("order_ids_tracked"),
  age: at("market_list_age_seconds"),
  info: at("market_info"),
  status: at("market_status"),
  // The venue's "fractions" are exported as ratios.
  settings: MARKET_SETTINGS.map((x) => at(`market_${snake(x).replace(/_fraction$/, "_ratio")}`)),
};

/** The bound's own redactor, as the exporter keeps one per process; the caller gives it the keys. */
export const redactor = new Redactor();
const fields = new VenueFields(redactor);
/** A venue string as a label: no configured secret may reach an answer, well-formed and cut. */
const text = (value: unknown): string => wellFormedLabel(redactor.venueText(String(value)));
/** A venue number as the exporter reads it (a JSON number or a decimal string, finite, no run of a secret); else NaN, a value not given. */
const num = (value: unknown): number => fields.number(value) ?? Number.NaN;
/** Sums as the venue wrote its numbers (0.1 + 0.2 is 0.3): the exporter's numbers are exactly the venue's. */
const exactSum = <T>(items: T[], value: (item: T) => number): number => items.reduce((sum, item) => sum.add(value(item)), new ExactSum()).value;

const seconds = (t: unknown): number => {
  const n = num(t);
  return n < 1e11 ? n : n / 1e3;
};

export interface VenueData {
  account: string;
  /** [collateral id, parsed account-info body] */
  accounts: Array<[string, Raw]>;
  active: Raw[];
  activeLimit: number;
  history: Raw[];
  historyLimit: number;
  markets: Raw[];
  /** Whether the market list's own families are rendered (the venue target's); an account's probe only reads the list. */
  marketFamilies: boolean;
  durations: number[];
  /** The order counters, where the caller keeps them (the bound does, as the exporter must). */
  outcomes?: OrderIdMemory;
}

type Counted = Map<string, { labels: string[]; n: number }>;

/**
 * The order counters at their plainest: per id one number, a bit per status counted and one for a rejection, kept while
 * the last read showed the id (the exporter keeps it until two whole reads miss it); the first read counts 0, as the
 * exporter's first collection does.
 */
export class OrderIdMemory {
  #last = new Map<string, number>();
  #reads = 0;
  readonly #statuses: string[] = [];
  readonly orders: Counted = new Map();
  readonly rejections: Counted = new Map();

  get tracked(): number {
    return this.#last.size;
  }

  read(account: string, lists: Raw[][]): void {
    const now = new Map<string, number>();
    const step = this.#reads++ === 0 ? 0 : 1;
    const count = (counts: Counted, labels: string[]) => {
      const key = labels.join("\u0000");
      (counts.get(key) ?? counts.set(key, { labels, n: 0 }).get(key)!).n += step;
    };
    for (const list of lists) {
      for (const o of list) {
        const id = String(o.id);
        let bits = now.get(id) ?? this.#last.get(id) ?? 0;
        const status = text(o.status);
        let index = this.#statuses.indexOf(status);
        if (index < 0) index = this.#statuses.push(status) - 1;
        if ((bits & (2 << index)) === 0) {
          bits |= 2 << index;
          count(this.orders, [account, text(o.marketId), status]);
        }
        const code = (o.rejectionReason as Raw | null | undefined)?.code;
        if (code !== undefined && code !== null && code !== "" && (bits & 1) === 0) {
          bits |= 1;
          count(this.rejections, [account, text(o.marketId), text(code)]);
        }
        now.set(id, bits);
      }
    }
    this.#last = now;
  }
}

function orderGroups(account: string, orders: Raw[]): Map<string, { labels: string[]; orders: Raw[] }> {
  const groups = new Map<string, { labels: string[]; orders: Raw[] }>();
  for (const o of orders) {
    const labels = [account, text(o.marketId), text(o.side), text(o.direction), text(o.type), text(o.status)];
    const key = labels.join("\u0000");
    const group = groups.get(key) ?? groups.set(key, { labels, orders: [] }).get(key)!;
    group.orders.push(o);
  }
  return groups;
}

function byMarket(orders: Raw[]): Map<string, Raw[]> {
  const markets = new Map<string, Raw[]>();
  for (const o of orders) {
    const id = text(o.marketId);
    (markets.get(id) ?? markets.set(id, []).get(id)!).push(o);
  }
  return markets;
}

export function venueSeries(d: VenueData, emit: Emit): void {
  const a = d.account;
  const endpoints = ["account_info", "orders_active", "orders_history"];
  endpoints.forEach((e, i) => {
    emit(I.success, [e, a], 1);
    emit(I.duration, [e, a], d.durations[i] ?? 0);
  });
  if (d.marketFamilies) {
    emit(I.success, ["markets", ""], 1);
    emit(I.duration, ["markets", ""], 0);
  }
  emit(I.up, [a], 1);
  emit(I.collectedAt, [a], Date.now() / 1000);
  for (const key of THRESHOLD_KEYS) emit(THRESHOLDS[key].unit === "ratio" ? I.threshold : I.thresholdSeconds, [a, key], THRESHOLDS[key].default);
  const markets = new Map(d.markets.map((m) => [String(m.id), (m.settings ?? {}) as Raw]));
  for (const [collateral, info] of d.accounts) {
    const labels = [a, collateral];
    for (const [field, family] of ACCOUNT_FIELDS) emit(family, labels, num(info[field]));
    const positions = Array.isArray(info.positions) ? (info.positions as Raw[]) : undefined;
    emit(I.positions, labels, positions?.length ?? num(info.positions));
    const total = num(info.totalMargin);
    if (total > 0) emit(I.usage, labels, (total - num(info.availableMargin)) / total);
    if (positions === undefined) continue;
    const maintenance = exactSum(positions, (p) => num(p.maintenanceMargin));
    emit(I.maintenance, labels, maintenance);
    emit(I.ratio, labels, maintenance / total);
    const seen = new Set<string>();
    for (const p of positions) {
      const key = `${String(p.marketId)}\u0000${String(p.direction)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const pl = [a, collateral, text(p.marketId), text(p.direction)];
      for (const [field, family] of POSITION_FIELDS) emit(family, pl, num(p[field]));
      const size = Math.abs(num(p.size));
      const avg = num(p.avgExecutionPrice);
      emit(I.notional, pl, num(p.size) * avg);
      emit(I.distance, pl, Math.abs(avg - num(p.liquidationPrice)) / avg);
      const m = markets.get(String(p.marketId));
      if (m === undefined) continue;
      const setting = (k: string) => num(m[k]);
      const steps = Math.ceil(Math.max(0, size - setting("baselinePositionSize")) / setting("incrementalPositionSize"));
      emit(I.requirement, pl, size * avg * (setting("initialMarginFraction") + setting("incrementalInitialMarginFraction") * steps));
      emit(I.limit, pl, size / setting("maxPositionSize"));
    }
  }
  for (const { labels, orders } of orderGroups(a, d.active).values()) {
    emit(I.active, labels, orders.length);
    ACTIVE_SUMS.forEach((field, i) =>
      emit(
        I.activeSums[i]!,
        labels,
        exactSum(orders, (o) => num(o[field])),
      ),
    );
    emit(I.activeNotional, labels, orders.reduce((sum, o) => sum.addProduct(num(o.price), num(o.quantity)), new ExactSum()).value);
  }
  for (const [market, orders] of byMarket(d.active)) {
    for (const [flag, field] of FLAGS) emit(I.pending, [a, market, flag], orders.filter((o) => o[field] === true).length);
    emit(I.oldest, [a, market], Math.min(...orders.map((o) => seconds(o.createdAt))));
  }
  emit(I.truncated, [a], d.active.length >= d.activeLimit ? 1 : 0);
  for (const { labels, orders } of orderGroups(a, d.history).values()) emit(I.history, labels, orders.length);
  const codes = new Map<string, { labels: string[]; n: number }>();
  for (const o of d.history) {
    const code = (o.rejectionReason as Raw | null | undefined)?.code;
    if (code === undefined) continue;
    const labels = [a, text(o.marketId), text(code)];
    const key = labels.join("\u0000");
    (codes.get(key) ?? codes.set(key, { labels, n: 0 }).get(key)!).n++;
  }
  for (const { labels, n } of codes.values()) emit(I.rejections, labels, n);
  for (const [market, orders] of byMarket(d.history)) emit(I.last, [a, market], Math.max(...orders.map((o) => seconds(o.createdAt))));
  emit(I.fetched, [a], d.history.length);
  emit(I.historyTruncated, [a], d.history.length >= d.historyLimit ? 1 : 0);
  if (d.outcomes !== undefined) {
    for (const { labels, n } of d.outcomes.orders.values()) emit(I.outcomes, labels, n);
    for (const { labels, n } of d.outcomes.rejections.values()) emit(I.outcomeRejections, labels, n);
    emit(I.tracked, [a], d.outcomes.tracked);
  }
  if (!d.marketFamilies) return;
  emit(I.age, [], 0);
  for (const m of d.markets) {
    const id = text(m.id);
    emit(I.info, [id, text(m.name), text(m.assetId), text(m.collateralAssetId)], 1);
    emit(I.status, [id, text(m.status)], 1);
    const settings = m.settings;
    MARKET_SETTINGS.forEach((x, i) => emit(I.settings[i]!, [id], num((settings as Raw | undefined)?.[x])));
  }
}
