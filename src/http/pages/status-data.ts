// What the status page shows, read from the families the collectors make of the latest collection: the numbers of /metrics.

import type { LastFailure } from "../../scrape/account-store.js";
import type { MarginTrend } from "../../scrape/margin-trend.js";
import type { AccountResult, ScrapeResult } from "../../scrape/result.js";
import { account as accountCollector } from "../../collectors/account.js";
import { distanceEntry, eachPosition, isFlat, positions as positionsCollector, positionsOf } from "../../collectors/positions.js";
import { scrapeHealth } from "../../collectors/scrape-health.js";
import { THRESHOLDS, type ThresholdKey, type Thresholds } from "../../config/threshold-table.js";
import { metricName, type Family } from "../../metrics/family.js";

export type RiskState = "ok" | "warning" | "critical";
type Tier = "margin_ratio" | "margin_usage" | "liquidation_distance";

/** By the account's own thresholds, strictly past each on the side its alert fires: +Inf (no margin left) and a negative distance are critical. */
export function grade(tier: Tier, value: number, t: Thresholds): RiskState {
  const past = (key: ThresholdKey) => (THRESHOLDS[key].fires === "above" ? value > t[key] : value < t[key]);
  return past(`${tier}_critical`) ? "critical" : past(`${tier}_warning`) ? "warning" : "ok";
}

/** The alert a graded state stands for, whose runbook its badge links to. */
export const alertOf = (tier: Tier, state: "warning" | "critical"): string => THRESHOLDS[`${tier}_${state}`].alert;

/** The amounts of a collateral row, each the family of /metrics it is from. */
export const MONEY = [
  ["collateral_balance", "Balance"],
  ["available_margin", "Available margin"],
  ["total_margin", "Total margin"],
  ["unrealized_pnl", "Unrealized PnL"],
] as const;

export const TOTAL_MARGIN = MONEY.findIndex(([family]) => family === "total_margin");

/** Positions with a liquidation distance the page lists per collateral, nearest first. */
export const SHOWN_POSITIONS = 3;

/** What the page shows, each number under the name of the series it comes from. */
export type StatusData = ReturnType<typeof statusData>;
export type AccountStatus = StatusData["accounts"][number];
export type CollateralStatus = AccountStatus["collaterals"][number];

function samplesOf(families: Family[], name: string): Map<string, number> {
  const family = families.find((f) => f.name === name);
  return new Map((family?.samples ?? []).map((s) => [key(...s.labels), s.value]));
}

/** join writes a missing label as "", as the page reads it. */
const key = (...labels: ReadonlyArray<string | null | undefined>) => labels.join("\u0000");

/** The samples the page reads, each under the series it comes from, made by the collectors that make /metrics. */
function figuresOf(result: ScrapeResult | undefined) {
  const families = result === undefined ? [] : [...scrapeHealth.collect(result), ...accountCollector.collect(result), ...positionsCollector.collect(result)];
  // The entry each distance is measured from: a merged position's nearer leg's, not its merged average.
  const entries = new Map<string, number | undefined>();
  if (result !== undefined) eachPosition(result, (labels, p) => entries.set(key(...labels), distanceEntry(p)));
  // Per account and collateral, the positions with a distance: one pass over the family, however many accounts.
  const samples = families.find((f) => f.name === metricName("position", "liquidation_distance_ratio"))?.samples ?? [];
  const distances = Map.groupBy(samples, ({ labels }) => key(labels[0], labels[1]));
  return {
    up: samplesOf(families, metricName("up")),
    collectedAt: samplesOf(families, metricName("collection_timestamp_seconds")),
    ratio: samplesOf(families, metricName("account", "margin_ratio")),
    usage: samplesOf(families, metricName("account", "margin_usage_ratio")),
    positions: samplesOf(families, metricName("account", "positions")),
    money: MONEY.map(([family]) => samplesOf(families, metricName("account", family))),
    success: samplesOf(families, metricName("scrape_success")),
    liquidations: samplesOf(families, metricName("position", "liquidation_price")),
    entries,
    distances,
  };
}

/** The ratio grades where it is known; margin in use where it is not, as the alerts page. */
function gradedMargin(ratio: number | undefined, noMarginLeft: boolean, usage: number | undefined, t: Thresholds): RiskState | undefined {
  if (ratio !== undefined) return grade("margin_ratio", ratio, t);
  if (noMarginLeft) return "critical";
  return usage === undefined ? undefined : grade("margin_usage", usage, t);
}

type Shown = { name: string; collateralIds: readonly string[]; thresholds: Thresholds; trend?: MarginTrend | undefined };

function collateralStatus(f: ReturnType<typeof figuresOf>, collected: AccountResult | undefined, shown: Shown, collateralId: string) {
  const { name, thresholds, trend } = shown;
  const k = key(name, collateralId);
  const [marginRatio, marginUsage] = [f.ratio.get(k), f.usage.get(k)];
  // Without an answer for the collateral, a missing value is missing data, not a figure the venue lacks.
  const info = collected?.accountInfos.find((i) => i.collateralId === collateralId);
  const [count, totalMargin] = [f.positions.get(k), f.money[TOTAL_MARGIN]!.get(k)];
  // As the margin-in-use alerts fire: a total margin of 0 or less with positions open and no ratio to judge it.
  const noMarginLeft = marginRatio === undefined && totalMargin !== undefined && totalMargin <= 0 && count !== undefined && count > 0;
  /** The distance of the nearest position, between its two prices (trading_position_avg_execution_price and _liquidation_price). */
  const byDistance = (f.distances.get(k) ?? []).sort((x, y) => x.value - y.value);
  const nearestOf = (n: { labels: ReadonlyArray<string | null>; value: number }) => ({
    marketId: n.labels[2] ?? "",
    direction: n.labels[3] ?? "",
    distance: n.value,
    state: grade("liquidation_distance", n.value, thresholds),
    entry: f.entries.get(key(...n.labels)),
    liquidation: f.liquidations.get(key(...n.labels)),
  });
  const now = performance.now() / 1000;
  return {
    collateralId,
    answered: info !== undefined,
    /** Seconds until the margin ratio, or margin in use, reaches 1 at its last 30 minutes' trend; undefined unless rising. */
    toOne: { ratio: trend?.secondsToOne(collateralId, "ratio", now), usage: trend?.secondsToOne(collateralId, "usage", now) },
    /** detailed: positions listed; summary: only their count, so no margin ratio and no distance. */
    shape: info?.shape,
    positions: count,
    money: f.money.map((samples) => samples.get(k)),
    marginRatio,
    marginUsage,
    noMarginLeft,
    marginState: gradedMargin(marginRatio, noMarginLeft, marginUsage, thresholds),
    nearest: byDistance[0] && nearestOf(byDistance[0]),
    /** The next nearest after it, as many as the page has room for, and how many more have a distance. */
    next: byDistance.slice(1, SHOWN_POSITIONS).map(nearestOf),
    notShown: Math.max(0, byDistance.length - SHOWN_POSITIONS),
    /** Listed positions whose liquidation price the venue did not give (0 or below, or none): they have no distance. */
    unpriced: (info === undefined ? [] : positionsOf(info)).filter((p) => !isFlat(p) && !(p.liquidationPrice !== undefined && p.liquidationPrice > 0)).length,
  };
}

type LastFailureOf = (endpoint: string, account: string | undefined) => LastFailure | undefined;

export function statusData(result: ScrapeResult | undefined, shown: readonly Shown[], lastFailure: LastFailureOf) {
  const f = figuresOf(result);
  const collected = new Map((result?.accounts ?? []).map((a) => [a.account, a]));
  const endpointsOf = (outcomes: ReadonlyArray<{ endpoint: string }>, account: string | undefined) =>
    outcomes.map(({ endpoint }) => ({ endpoint, success: f.success.get(key(endpoint, account)) ?? 0, lastFailure: lastFailure(endpoint, account) }));
  return {
    accounts: shown.map((one) => ({
      name: one.name,
      thresholds: one.thresholds,
      up: f.up.get(one.name),
      collectedAtSeconds: f.collectedAt.get(one.name),
      collaterals: one.collateralIds.map((collateralId) => collateralStatus(f, collected.get(one.name), one, collateralId)),
      endpoints: endpointsOf(collected.get(one.name)?.outcomes ?? [], one.name),
    })),
    markets: endpointsOf(result?.markets ? [result.markets.outcome] : [], undefined)[0],
  };
}
