// Public types of the simulated venue: endpoints, faults, configuration names and the wire shapes it serves.

export type SimEndpoint = "account_info" | "orders_history" | "orders_active" | "markets";
export const SIM_ENDPOINTS: readonly SimEndpoint[] = ["account_info", "orders_history", "orders_active", "markets"];

/** Quirks change what a request is answered, and several apply at once; other faults replace the answer. */
export const QUIRK_KINDS = [
  "history_ignores_offset",
  "history_ignores_limit",
  "history_overlaps",
  "history_more_than_limit",
  "odd_strings",
  "unset_times",
  "empty_rejections",
] as const;
export type QuirkKind = (typeof QUIRK_KINDS)[number];

/** Every fault the simulator can inject; FaultKind is derived from it, so a new kind is added once. */
export const FAULT_KINDS = [
  "latency",
  "trickle",
  "hang",
  "status",
  "malformed_json",
  "truncated_json",
  "wrong_types",
  "missing_fields",
  "wrong_container",
  "oversized",
  "empty_objects",
  "gzip_bomb",
  "redirect",
  "reset",
  ...QUIRK_KINDS,
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  endpoint: SimEndpoint | "*";
  kind: FaultKind;
  /** latency: delay before answering; trickle: total time over which the body is sent. */
  latencyMs?: number;
  /** status: the status to answer; redirect: the 3xx status (default 302). */
  status?: number;
  /** status: sent verbatim as the Retry-After header. */
  retryAfter?: string;
  /** oversized / empty_objects / gzip_bomb: size of the (inflated) body. */
  bytes?: number;
  /** redirect: the Location header. */
  location?: string;
  /** Apply to the next N matching requests only, then drop the fault. */
  times?: number;
}

export type TimeUnit = "s" | "ms" | "us" | "ns";
export type ProfileName = "small" | "large" | "huge";
export type CollateralShape = "detailed" | "summary";
export interface CollateralSpec {
  id: string;
  shape: CollateralShape;
}
export type ScenarioName = "normal" | "liquidation" | "wipeout" | "halt" | "drift";
export const SCENARIO_NAMES: readonly ScenarioName[] = ["normal", "liquidation", "wipeout", "halt", "drift"];

export interface SimStats {
  requests: Record<SimEndpoint, number>;
}

// ---- Wire shapes (as the venue reference describes them) ----

export interface MarketSettings {
  tickSize: number;
  tickPrecision: number;
  stepSize: number;
  stepPrecision: number;
  minOrderSize: number;
  minLeverage: number;
  maxLeverage: number;
  maintenanceMarginFraction: number;
  initialMarginFraction: number;
  incrementalInitialMarginFraction: number;
  incrementalPositionSize: number;
  baselinePositionSize: number;
  maxPositionSize: number;
  currentlyAllowedLeverage: number;
}

export interface Market {
  id: string;
  name: string;
  assetId: string;
  collateralAssetId: string;
  status: string;
  metadataUrl: string;
  metadata: Record<string, unknown>;
  settings: MarketSettings;
}

/** Element of `positions` in the detailed account shape; every amount is a decimal string. */
export interface Position {
  marketId: string;
  direction: "LONG" | "SHORT";
  avgExecutionPrice: string;
  size: string;
  marginAmount: string;
  borrowedAmount: string;
  leverage: string;
  realizedPnl: string;
  liquidationPrice: string;
  maintenanceMargin: string;
}

export interface DetailedAccount {
  collateralBalance: string;
  availableMargin: string;
  totalInvested: string;
  totalMargin: string;
  totalUnrealizedPnl: string;
  positions: Position[];
}

export interface SummaryAccount {
  collateralId: string;
  collateralBalance: number;
  availableMargin: number;
  totalInvested: number;
  totalMargin: number;
  totalUnrealizedPnl: number;
  positions: number;
}

export type OrderStatus = "CREATED" | "PARTIALLY_FILLED" | "FILLED" | "CANCELLED" | "REJECTED" | "EXPIRED";

export interface Order {
  id: string;
  accountId: string;
  signature: string[];
  marketId: string;
  type: "MARKET" | "LIMIT";
  side: "BUY" | "SELL";
  direction: "LONG" | "SHORT";
  status: OrderStatus;
  isPendingExpiration: boolean;
  isPendingCancellation: boolean;
  isPendingRejection: boolean;
  price: number;
  quantity: number;
  quantityLocked: number;
  quantityFilled: number;
  leverage: number;
  slippage: number;
  postOnly: boolean;
  timeInForce: "GTC" | "IOC";
  clientTimestamp: number;
  rejectionReason?: { code: string; message: string };
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

/** One answer of the simulated venue: its status, its body, and the body's value (parsed lazily). */
export interface VenueAnswer {
  status: number;
  body: Buffer;
  value(): unknown;
}
