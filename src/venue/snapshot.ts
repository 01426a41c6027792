// The typed, plain data that the venue client hands to the collectors: nothing raw passes here.

import type { Decimal } from "../util/decimal.js";

/** Numbers as the venue wrote them, only where the text has more digits than a double keeps; an absent field is exact as its double. */
export type Exact<K extends string> = Partial<Record<K, Decimal>>;

type Maybe<T> = T | undefined;

export const POSITION_NUMBERS = [
  "avgExecutionPrice",
  "size",
  "marginAmount",
  "borrowedAmount",
  "leverage",
  "realizedPnl",
  "liquidationPrice",
  "maintenanceMargin",
] as const;

export type Position = Record<(typeof POSITION_NUMBERS)[number], Maybe<number>> & {
  marketId: Maybe<string>;
  direction: Maybe<string>;
  exact: Exact<"size" | "avgExecutionPrice" | "liquidationPrice" | "maintenanceMargin"> | undefined;
};

export const ACCOUNT_NUMBERS = ["collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"] as const;

export type AccountInfo = Record<(typeof ACCOUNT_NUMBERS)[number], Maybe<number>> & {
  collateralId: string;
  shape: "detailed" | "summary";
  positionCount: Maybe<number>;
  positions: Position[];
  /** False when an element of the list could not be read, so sums over it are unknown. */
  positionsComplete: boolean;
  exact: Exact<"totalMargin" | "availableMargin"> | undefined;
};

export const ORDER_FLAGS = ["isPendingExpiration", "isPendingCancellation", "isPendingRejection"] as const;
export const ORDER_NUMBERS = ["price", "quantity", "quantityLocked", "quantityFilled"] as const;

/** An order of either list. The optional fields are read for active orders only: no metric of the history uses them. */
export type Order = Partial<Record<(typeof ORDER_FLAGS)[number], Maybe<boolean>> & Record<(typeof ORDER_NUMBERS)[number], Maybe<number>>> & {
  id: Maybe<string>;
  marketId: Maybe<string>;
  type: Maybe<string>;
  side: Maybe<string>;
  direction: Maybe<string>;
  status: Maybe<string>;
  /** Seconds since the epoch, whatever unit the venue used. */
  createdAt: Maybe<number>;
  rejectionCode: Maybe<string>;
  exact?: Exact<(typeof ORDER_NUMBERS)[number]> | undefined;
};

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
  truncated: boolean;
  /** Pages the next read asks at once: as many as this read used, or one where a page came back longer than asked. */
  askNext: number;
  anomalies: Partial<Record<PagingAnomaly, number>>;
}
