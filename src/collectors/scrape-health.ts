// Per-endpoint success and duration, and trading_up per account.

import { addSample, gauge, metricName } from "../metrics/family.js";
import type { Collector } from "./collector.js";

export const scrapeHealth: Collector = (scrape) => {
  const success = gauge(
    metricName("scrape_success"),
    "Whether the last call of a venue endpoint succeeded (1) or failed (0); markets carry no account label.",
    ["endpoint", "account"],
  );
  const duration = gauge(
    metricName("scrape_duration_seconds"),
    "Seconds the last call of a venue endpoint took, retries and pages included.",
    ["endpoint", "account"],
  );
  const up = gauge(
    metricName("up"),
    "Whether every endpoint of the account (account_info, orders_active, orders_history) succeeded in this scrape.",
    ["account"],
  );
  const outcomes = scrape.accounts.flatMap((a) => a.outcomes);
  if (scrape.markets) outcomes.push(scrape.markets.outcome);
  for (const o of outcomes) {
    const labels = [o.endpoint, o.account ?? null];
    addSample(success, labels, o.ok ? 1 : 0);
    addSample(duration, labels, o.durationSeconds);
  }
  for (const a of scrape.accounts) {
    addSample(up, [a.account], a.outcomes.every((o) => o.ok) ? 1 : 0);
  }
  return [success, duration, up];
};
