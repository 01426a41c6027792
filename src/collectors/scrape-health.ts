// Per-endpoint success and duration, and per account trading_up and when its served collection started.

import type { ScrapeResult } from "../scrape/result.js";
import { addSample, gauge, metricName, type Family } from "../metrics/family.js";
import type { Collector } from "../metrics/collector.js";

function collect(scrape: ScrapeResult): Family[] {
  const g = (name: string, help: string, labels: string[]) => gauge(metricName(name), help, labels);
  const success = g("scrape_success", "Whether the last call of a venue endpoint succeeded (1) or failed (0); markets carry no account label.", [
    "endpoint",
    "account",
  ]);
  const duration = g("scrape_duration_seconds", "Seconds the last call of a venue endpoint took, retries and pages included.", ["endpoint", "account"]);
  const up = g("up", "Whether every endpoint of the account (account_info, orders_active, orders_history) succeeded in this scrape.", ["account"]);
  const outcomes = scrape.accounts.flatMap((a) => a.outcomes);
  // The market list's health and age belong to the venue's target, with its series.
  const markets = scrape.marketFamilies ? scrape.markets : undefined;
  if (markets) outcomes.push(markets.outcome);
  for (const o of outcomes) {
    const labels = [o.endpoint, o.account ?? null];
    addSample(success, labels, o.ok ? 1 : 0);
    addSample(duration, labels, o.durationSeconds);
  }
  const collectedAt = g(
    "collection_timestamp_seconds",
    "Unix time in seconds when the collection this scrape serves for the account started; scrapes inside the minimum collection interval share one.",
    ["account"],
  );
  for (const a of scrape.accounts) {
    addSample(up, [a.account], a.outcomes.every((o) => o.ok) ? 1 : 0);
    if (a.startedAt !== undefined) addSample(collectedAt, [a.account], a.startedAt / 1000);
  }
  const age = g(
    "market_list_age_seconds",
    `Seconds since the market list was read from the venue (it is cached up to ${scrape.markets?.maxAgeSeconds ?? 0} s).`,
    [],
  );
  if (markets?.markets !== undefined) addSample(age, [], Math.max(0, scrape.collectedAt - markets.readAt) / 1000);
  return [success, duration, up, collectedAt, age];
}

export const scrapeHealth: Collector = { collect, givesWay: "never" };
