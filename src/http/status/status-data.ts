// What the status page shows, read from the families the collectors make of the latest collection: the numbers of /metrics.

import type { LastFailure } from "../../endpoint-health.js";
import type { ScrapeResult } from "../../scrape/result.js";
import { account as accountCollector } from "../../collectors/account.js";
import { positions as positionsCollector } from "../../collectors/positions.js";
import { scrapeHealth } from "../../collectors/scrape-health.js";
import type { Thresholds } from "../../config/threshold-table.js";
import { metricName, type Family } from "../../metrics/family.js";
import { liquidationState, marginState, type RiskState } from "./risk-levels.js";

interface NearestLiquidation {
  marketId: string;
  direction: string;
  /** trading_position_liquidation_distance_ratio of the position nearest to it. */
  distance: number;
  state: RiskState;
}

/** The amounts of a collateral row, each the family of /metrics it is from. */
export const MONEY = [
  ["collateral_balance", "Balance"],
  ["available_margin", "Available margin"],
  ["total_margin", "Total margin"],
  ["unrealized_pnl", "Unrealized PnL"],
] as const;

/** What the page shows, each number under the name of the series it comes from. */
export type StatusData = ReturnType<typeof statusData>;
export type AccountStatus = StatusData["accounts"][number];
export type CollateralStatus = AccountStatus["collaterals"][number];
export type EndpointStatus = AccountStatus["endpoints"][number];

function samplesOf(families: Family[], name: string): Map<string, number> {
  const family = families.find((f) => f.name === name);
  return new Map((family?.samples ?? []).map((s) => [s.labels.map((l) => l ?? "").join("\u0000"), s.value]));
}

const key = (...labels: string[]) => labels.join("\u0000");

/** Per account and collateral, the position nearest to liquidation: one pass over the family, however many accounts. */
function nearestByCollateral(families: Family[], thresholdsOf: (account: string) => Thresholds | undefined): Map<string, NearestLiquidation> {
  const family = families.find((f) => f.name === metricName("position", "liquidation_distance_ratio"));
  const nearest = new Map<string, NearestLiquidation>();
  for (const s of family?.samples ?? []) {
    const [account, collateralId, marketId, direction] = s.labels;
    const thresholds = account == null ? undefined : thresholdsOf(account);
    if (account == null || collateralId == null || marketId == null || direction == null || thresholds === undefined) continue;
    const k = key(account, collateralId);
    const known = nearest.get(k);
    if (known === undefined || s.value < known.distance)
      nearest.set(k, { marketId, direction, distance: s.value, state: liquidationState(s.value, thresholds) });
  }
  return nearest;
}

/** Made by the collectors that make /metrics, so a value on the page is the value in the exposition. */
export function statusData(
  result: ScrapeResult | undefined,
  shown: ReadonlyArray<{ name: string; collateralIds: readonly string[]; thresholds: Thresholds }>,
  lastFailure: (endpoint: string, account: string | undefined) => LastFailure | undefined,
) {
  const families = result === undefined ? [] : [...scrapeHealth.collect(result), ...accountCollector.collect(result), ...positionsCollector.collect(result)];
  const up = samplesOf(families, metricName("up"));
  const collectedAt = samplesOf(families, metricName("collection_timestamp_seconds"));
  const ratio = samplesOf(families, metricName("account", "margin_ratio"));
  const positions = samplesOf(families, metricName("account", "positions"));
  const money = MONEY.map(([family]) => samplesOf(families, metricName("account", family)));
  const success = samplesOf(families, metricName("scrape_success"));
  const thresholdsOf = new Map(shown.map((a) => [a.name, a.thresholds]));
  const nearest = nearestByCollateral(families, (name) => thresholdsOf.get(name));
  const collected = new Map((result?.accounts ?? []).map((a) => [a.account, a]));
  const endpointsOf = (outcomes: ReadonlyArray<{ endpoint: string }>, account: string | undefined) =>
    outcomes.map(({ endpoint }) => ({ endpoint, success: success.get(key(endpoint, account ?? "")) ?? 0, lastFailure: lastFailure(endpoint, account) }));
  return {
    accounts: shown.map(({ name, collateralIds, thresholds }) => ({
      name,
      thresholds,
      up: up.get(name),
      collectedAtSeconds: collectedAt.get(name),
      collaterals: collateralIds.map((collateralId) => {
        const marginRatio = ratio.get(key(name, collateralId));
        // Without an answer for the collateral, a missing value is missing data, not a figure the venue lacks.
        const info = collected.get(name)?.accountInfos.find((i) => i.collateralId === collateralId);
        return {
          collateralId,
          answered: info !== undefined,
          /** detailed: positions listed; summary: only their count, so no margin ratio and no distance. */
          shape: info?.shape,
          positions: positions.get(key(name, collateralId)),
          money: money.map((samples) => samples.get(key(name, collateralId))),
          marginRatio,
          marginState: marginRatio === undefined ? undefined : marginState(marginRatio, thresholds),
          nearest: nearest.get(key(name, collateralId)),
        };
      }),
      endpoints: endpointsOf(collected.get(name)?.outcomes ?? [], name),
    })),
    markets: endpointsOf(result?.markets ? [result.markets.outcome] : [], undefined)[0],
  };
}
