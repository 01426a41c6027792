// The typed, plain data that the venue client hands to the collectors: nothing raw passes here.

import type { Decimal } from "../util/decimal.js";

/**
 * Numbers exactly as the venue wrote them, by field, for the fields derived values are computed
 * from, and only where the text has more significant digits (over 15) than a double keeps; a field
 * absent here is exact as its double. See util/decimal.ts.
 */
export type Exact<K extends string> = Partial<Record<K, Decimal>>;

/** A value the venue did not send, or sent in a form that is not a finite number, is undefined. */
type Maybe<T> = T | undefined;

export interface Position {
  marketId: Maybe<string>;
  direction: Maybe<string>;
  avgExecutionPrice: Maybe<number>;
  size: Maybe<number>;
  marginAmount: Maybe<number>;
  borrowedAmount: Maybe<number>;
  leverage: Maybe<number>;
  realizedPnl: Maybe<number>;
  liquidationPrice: Maybe<number>;
  maintenanceMargin: Maybe<number>;
  exact: Exact<"size" | "avgExecutionPrice" | "liquidationPrice" | "maintenanceMargin"> | undefined;
}

export interface AccountInfo {
  collateralId: string;
  /** detailed: positions listed; summary: only their count. */
  shape: "detailed" | "summary";
  collateralBalance: Maybe<number>;
  availableMargin: Maybe<number>;
  totalInvested: Maybe<number>;
  totalMargin: Maybe<number>;
  totalUnrealizedPnl: Maybe<number>;
  positionCount: Maybe<number>;
  /** Detailed shape only. */
  positions: Position[];
  /** False when an element of the list could not be read, so sums over it are unknown. */
  positionsComplete: boolean;
  exact: Exact<"totalMargin"> | undefined;
}

/** An order of either list. The optional fields are read for active orders only: no metric of the history uses them. */
export interface Order {
  id: Maybe<string>;
  marketId: Maybe<string>;
  type: Maybe<string>;
  side: Maybe<string>;
  direction: Maybe<string>;
  status: Maybe<string>;
  isPendingExpiration?: Maybe<boolean>;
  isPendingCancellation?: Maybe<boolean>;
  isPendingRejection?: Maybe<boolean>;
  price?: Maybe<number>;
  quantity?: Maybe<number>;
  quantityLocked?: Maybe<number>;
  quantityFilled?: Maybe<number>;
  /** Seconds since the epoch, whatever unit the venue used. */
  createdAt: Maybe<number>;
  /** rejectionReason.code when the order carries a rejection reason. */
  rejectionCode: Maybe<string>;
  exact?: Exact<"price" | "quantity" | "quantityLocked" | "quantityFilled"> | undefined;
}

export const MARKET_SETTINGS = [
  "tickSize",
  "tickPrecision",
  "stepSize",
  "stepPrecision",
  "minOrderSize",
  "minLeverage",
  "maxLeverage",
  "maintenanceMarginFraction",
  "initialMarginFraction",
  "incrementalInitialMarginFraction",
  "incrementalPositionSize",
  "baselinePositionSize",
  "maxPositionSize",
  "currentlyAllowedLeverage",
] as const;
export type MarketSetting = (typeof MARKET_SETTINGS)[number];

export interface Market {
  id: string;
  name: Maybe<string>;
  assetId: Maybe<string>;
  collateralAssetId: Maybe<string>;
  status: Maybe<string>;
  settings: Record<MarketSetting, Maybe<number>>;
}

export interface ActiveOrders {
  orders: Order[];
  /** The limit that was asked for: an answer this long may have been cut. */
  limit: number;
}

/** How a venue's history paging can go wrong, each counted: no_progress ends the read, the others do not. */
export const PAGING_ANOMALIES = ["no_progress", "overlap", "more_than_asked"] as const;
export type PagingAnomaly = (typeof PAGING_ANOMALIES)[number];

export interface OrderHistory {
  orders: Order[];
  /** True when the order cap, the request bound or a paging anomaly ended the read early. */
  truncated: boolean;
  /** Pages of this read that showed each paging anomaly (see history-pager.ts). */
  anomalies: Partial<Record<PagingAnomaly, number>>;
}
