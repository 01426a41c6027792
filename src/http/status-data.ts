// What the status page shows, read from the families the collectors make of the latest collection: the numbers of /metrics.

import type { LastFailure } from "../collect/latest.js";
import type { ScrapeResult } from "../collect/result.js";
import { account as accountCollector } from "../collectors/account.js";
import { positions as positionsCollector } from "../collectors/positions.js";
import { scrapeHealth } from "../collectors/scrape-health.js";
import { metricName, type Family } from "../metrics/family.js";
import { liquidationState, marginState, type RiskState } from "./risk-levels.js";

export interface EndpointStatus {
  endpoint: string;
  /** trading_scrape_success: 1 or 0. */
  success: number;
  lastFailure: LastFailure | undefined;
}

export interface NearestLiquidation {
  marketId: string;
  direction: string;
  /** trading_position_liquidation_distance_ratio of the position nearest to it. */
  distance: number;
  state: RiskState;
}

export interface CollateralStatus {
  collateralId: string;
  /** Whether the collateral answered in the collection shown: without it, a missing value is missing data, not a figure the venue lacks. */
  answered: boolean;
  /** trading_account_positions, where reported. */
  positions: number | undefined;
  /** trading_account_margin_ratio; undefined where /metrics has no sample (no data, or not the detailed shape). */
  marginRatio: number | undefined;
  marginState: RiskState | undefined;
  nearest: NearestLiquidation | undefined;
}

export interface AccountStatus {
  name: string;
  /** trading_up; undefined while the account has not been collected. */
  up: number | undefined;
  /** trading_collection_timestamp_seconds: when the collection shown started. */
  collectedAtSeconds: number | undefined;
  collaterals: CollateralStatus[];
  endpoints: EndpointStatus[];
}

export interface StatusData {
  accounts: AccountStatus[];
  /** The market list's endpoint, once read. */
  markets: EndpointStatus | undefined;
}

/** The samples of one family by their label values joined, so a row finds its value. */
function samplesOf(families: Family[], name: string): Map<string, number> {
  const family = families.find((f) => f.name === name);
  return new Map((family?.samples ?? []).map((s) => [s.labels.map((l) => l ?? "").join("\u0000"), s.value]));
}

const key = (...labels: string[]) => labels.join("\u0000");

/** Per account and collateral, the position nearest to liquidation: one pass over the family, however many accounts. */
function nearestByCollateral(families: Family[]): Map<string, NearestLiquidation> {
  const family = families.find((f) => f.name === metricName("position", "liquidation_distance_ratio"));
  const nearest = new Map<string, NearestLiquidation>();
  for (const s of family?.samples ?? []) {
    const [account, collateralId, marketId, direction] = s.labels;
    if (account == null || collateralId == null || marketId == null || direction == null) continue;
    const k = key(account, collateralId);
    const known = nearest.get(k);
    if (known === undefined || s.value < known.distance) nearest.set(k, { marketId, direction, distance: s.value, state: liquidationState(s.value) });
  }
  return nearest;
}

/**
 * Each shown account's rows from `result` (the latest collection, or undefined before the first),
 * through the same collectors that make /metrics, so a value on the page is the value in the exposition.
 */
export function statusData(
  result: ScrapeResult | undefined,
  shown: ReadonlyArray<{ name: string; collateralIds: readonly string[] }>,
  lastFailure: (endpoint: string, account: string | undefined) => LastFailure | undefined,
): StatusData {
  const families = result === undefined ? [] : [...scrapeHealth.collect(result), ...accountCollector.collect(result), ...positionsCollector.collect(result)];
  const up = samplesOf(families, metricName("up"));
  const collectedAt = samplesOf(families, metricName("collection_timestamp_seconds"));
  const ratio = samplesOf(families, metricName("account", "margin_ratio"));
  const positions = samplesOf(families, metricName("account", "positions"));
  const success = samplesOf(families, metricName("scrape_success"));
  const nearest = nearestByCollateral(families);
  const collected = new Map((result?.accounts ?? []).map((a) => [a.account, a]));
  const endpointsOf = (account: string | undefined) =>
    ((account === undefined ? undefined : collected.get(account)?.outcomes) ?? (account === undefined && result?.markets ? [result.markets.outcome] : [])).map(
      (o) => ({
        endpoint: o.endpoint,
        success: success.get(key(o.endpoint, account ?? "")) ?? 0,
        lastFailure: lastFailure(o.endpoint, account),
      }),
    );
  return {
    accounts: shown.map(({ name, collateralIds }) => ({
      name,
      up: up.get(name),
      collectedAtSeconds: collectedAt.get(name),
      collaterals: collateralIds.map((collateralId) => {
        const marginRatio = ratio.get(key(name, collateralId));
        const answered = collected.get(name)?.accountInfos.some((i) => i.collateralId === collateralId) ?? false;
        return {
          collateralId,
          answered,
          positions: positions.get(key(name, collateralId)),
          marginRatio,
          marginState: marginRatio === undefined ? undefined : marginState(marginRatio),
          nearest: nearest.get(key(name, collateralId)),
        };
      }),
      endpoints: endpointsOf(name),
    })),
    markets: endpointsOf(undefined)[0],
  };
}
