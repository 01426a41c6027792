// The exporter's venue series computed the plain way, straight from JSON.parse's output with float
// sums: what the benchmark's bound renders with a template and its naive peer sets as gauges.

import { MARKET_SETTINGS } from "../src/venue/snapshot.js";

type Raw = Record<string, unknown>;

export interface SeriesFamily {
  name: string;
  help: string;
  labelNames: string[];
}

/** Emits one series: the family's index in FAMILIES, its label values in labelNames order, its value. */
export type Emit = (family: number, labels: string[], value: number) => void;

/** The exporter's names are snake case: `account_totalMargin` becomes `trading_account_total_margin`. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const f = (name: string, labelNames: string[]): SeriesFamily => ({ name: `trading_${snake(name)}`, help: `${name}.`, labelNames });
const ACCOUNT = ["account", "collateral_id"];
const POSITION = ["account", "collateral_id", "market_id", "direction"];
const GROUP = ["account", "market_id", "side", "direction", "type", "status"];
const MARKET = ["account", "market_id"];
const ACCOUNT_FIELDS = ["collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"];
const POSITION_FIELDS = ["size", "avgExecutionPrice", "marginAmount", "borrowedAmount", "leverage", "realizedPnl", "liquidationPrice", "maintenanceMargin"];
const FLAGS = [
  ["expiration", "isPendingExpiration"],
  ["cancellation", "isPendingCancellation"],
  ["rejection", "isPendingRejection"],
] as const;

export const FAMILIES: SeriesFamily[] = [
  f("scrape_success", ["endpoint", "account"]),
  f("scrape_duration_seconds", ["endpoint", "account"]),
  f("up", ["account"]),
  ...ACCOUNT_FIELDS.map((x) => f(`account_${x}`, ACCOUNT)),
  f("account_positions", ACCOUNT),
  f("account_maintenance_margin", ACCOUNT),
  f("account_margin_ratio", ACCOUNT),
  ...[...POSITION_FIELDS, "notional", "liquidation_distance_ratio"].map((x) => f(`position_${x}`, POSITION)),
  ...["count", "quantity", "quantity_filled", "quantity_locked", "notional"].map((x) => f(`active_orders_${x}`, GROUP)),
  f("active_orders_pending", ["account", "market_id", "flag"]),
  f("active_orders_oldest_created_timestamp_seconds", MARKET),
  f("active_orders_truncated", ["account"]),
  f("order_history_orders", GROUP),
  f("order_history_rejections", ["account", "market_id", "code"]),
  f("order_history_last_created_timestamp_seconds", MARKET),
  f("order_history_fetched_orders", ["account"]),
  f("order_history_truncated", ["account"]),
  f("orders_total", ["account", "market_id", "status"]),
  f("order_rejections_total", ["account", "market_id", "code"]),
  f("order_ids_tracked", ["account"]),
  f("market_list_age_seconds", []),
  f("market_info", ["market_id", "name", "asset_id", "collateral_asset_id"]),
  f("market_status", ["market_id", "status"]),
  ...MARKET_SETTINGS.map((x) => f(`market_${x}`, ["market_id"])),
];
const at = (name: string): number => FAMILIES.findIndex((x) => x.name === `trading_${snake(name)}`);
const I = {
  success: at("scrape_success"),
  duration: at("scrape_duration_seconds"),
  up: at("up"),
  account: at("account_collateralBalance"),
  positions: at("account_positions"),
  maintenance: at("account_maintenance_margin"),
  ratio: at("account_margin_ratio"),
  position: at("position_size"),
  active: at("active_orders_count"),
  pending: at("active_orders_pending"),
  oldest: at("active_orders_oldest_created_timestamp_seconds"),
  truncated: at("active_orders_truncated"),
  history: at("order_history_orders"),
  rejections: at("order_history_rejections"),
  last: at("order_history_last_created_timestamp_seconds"),
  fetched: at("order_history_fetched_orders"),
  historyTruncated: at("order_history_truncated"),
  outcomes: at("orders_total"),
  age: at("market_list_age_seconds"),
  info: at("market_info"),
  status: at("market_status"),
  setting: at("market_tickSize"),
};

const seconds = (t: unknown): number => (Number(t) < 1e11 ? Number(t) : Number(t) / 1e3);

export interface VenueData {
  account: string;
  /** [collateral id, parsed account-info body] */
  accounts: Array<[string, Raw]>;
  active: Raw[];
  activeLimit: number;
  history: Raw[];
  historyLimit: number;
  markets: Raw[];
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
        const status = String(o.status);
        let index = this.#statuses.indexOf(status);
        if (index < 0) index = this.#statuses.push(status) - 1;
        if ((bits & (2 << index)) === 0) {
          bits |= 2 << index;
          count(this.orders, [account, String(o.marketId), status]);
        }
        const code = (o.rejectionReason as Raw | null | undefined)?.code;
        if (code !== undefined && code !== null && code !== "" && (bits & 1) === 0) {
          bits |= 1;
          count(this.rejections, [account, String(o.marketId), String(code)]);
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
    const labels = [account, String(o.marketId), String(o.side), String(o.direction), String(o.type), String(o.status)];
    const key = labels.join("\u0000");
    const group = groups.get(key) ?? groups.set(key, { labels, orders: [] }).get(key)!;
    group.orders.push(o);
  }
  return groups;
}

function byMarket(orders: Raw[]): Map<string, Raw[]> {
  const markets = new Map<string, Raw[]>();
  for (const o of orders) {
    const id = String(o.marketId);
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
  emit(I.success, ["markets", ""], 1);
  emit(I.duration, ["markets", ""], 0);
  emit(I.up, [a], 1);
  for (const [collateral, info] of d.accounts) {
    const labels = [a, collateral];
    ACCOUNT_FIELDS.forEach((field, i) => emit(I.account + i, labels, Number(info[field])));
    const positions = Array.isArray(info.positions) ? (info.positions as Raw[]) : undefined;
    emit(I.positions, labels, positions?.length ?? Number(info.positions));
    if (positions === undefined) continue;
    const maintenance = positions.reduce((s, p) => s + Number(p.maintenanceMargin), 0);
    emit(I.maintenance, labels, maintenance);
    emit(I.ratio, labels, maintenance / Number(info.totalMargin));
    const seen = new Set<string>();
    for (const p of positions) {
      const key = `${String(p.marketId)}\u0000${String(p.direction)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const pl = [a, collateral, String(p.marketId), String(p.direction)];
      POSITION_FIELDS.forEach((field, i) => emit(I.position + i, pl, Number(p[field])));
      const avg = Number(p.avgExecutionPrice);
      emit(I.position + 8, pl, Number(p.size) * avg);
      emit(I.position + 9, pl, Math.abs(avg - Number(p.liquidationPrice)) / avg);
    }
  }
  for (const { labels, orders } of orderGroups(a, d.active).values()) {
    emit(I.active, labels, orders.length);
    emit(
      I.active + 1,
      labels,
      orders.reduce((s, o) => s + Number(o.quantity), 0),
    );
    emit(
      I.active + 2,
      labels,
      orders.reduce((s, o) => s + Number(o.quantityFilled), 0),
    );
    emit(
      I.active + 3,
      labels,
      orders.reduce((s, o) => s + Number(o.quantityLocked), 0),
    );
    emit(
      I.active + 4,
      labels,
      orders.reduce((s, o) => s + Number(o.price) * Number(o.quantity), 0),
    );
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
    const labels = [a, String(o.marketId), String(code)];
    const key = labels.join("\u0000");
    (codes.get(key) ?? codes.set(key, { labels, n: 0 }).get(key)!).n++;
  }
  for (const { labels, n } of codes.values()) emit(I.rejections, labels, n);
  for (const [market, orders] of byMarket(d.history)) emit(I.last, [a, market], Math.max(...orders.map((o) => seconds(o.createdAt))));
  emit(I.fetched, [a], d.history.length);
  emit(I.historyTruncated, [a], d.history.length >= d.historyLimit ? 1 : 0);
  if (d.outcomes !== undefined) {
    for (const { labels, n } of d.outcomes.orders.values()) emit(I.outcomes, labels, n);
    for (const { labels, n } of d.outcomes.rejections.values()) emit(I.outcomes + 1, labels, n);
    emit(I.outcomes + 2, [a], d.outcomes.tracked);
  }
  emit(I.age, [], 0);
  for (const m of d.markets) {
    const id = String(m.id);
    emit(I.info, [id, String(m.name), String(m.assetId), String(m.collateralAssetId)], 1);
    emit(I.status, [id, String(m.status)], 1);
    const settings = m.settings;
    MARKET_SETTINGS.forEach((s, i) => emit(I.setting + i, [id], Number((settings as Raw | undefined)?.[s])));
  }
}
