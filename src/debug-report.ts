// The plain-text report of a debug probe: what was asked of the venue, how it answered, what was wrong.

import type { CollectionLog, HistorySummary, ScrapeResult } from "./scrape/result.js";
import type { AccountConfig } from "./config/types.js";
import { REDACTED } from "./config/secret.js";
import { MARKET_TARGET } from "./config/sharding.js";
import { authenticator } from "./venue/auth.js";

export interface DebugInput {
  /** The account probed; undefined for the venue's market target. */
  account: AccountConfig | undefined;
  /** The reported collection's requests, invalid fields and starter; undefined when none finished in time. */
  log: CollectionLog | undefined;
  result: ScrapeResult;
  /** Series left out over the series cap. */
  dropped: number;
  exposition: string;
  /** The collection reported: when it started (the market list: when it was read). */
  collection: { startedAt: number | undefined; minIntervalSeconds: number };
}

function historyLine(history: HistorySummary): string {
  const cut = history.truncated ? ", cut short (cap, request bound or paging anomaly)" : "";
  const anomalies = Object.entries(history.anomalies).map(([kind, n]) => `${kind} x${n}`);
  return `  ${"".padEnd(15)} history: ${history.count} orders${cut}${anomalies.length > 0 ? `; paging anomalies: ${anomalies.join(", ")}` : ""}`;
}

export function debugReport(input: DebugInput): string {
  const { account, log, result } = input;
  const requests = log?.requests ?? [];
  const invalid = log?.invalid ?? new Map<string, number>();
  const extraHeaders = Object.keys(account?.headers ?? {}).map((h) => `${h}: ${REDACTED}`);
  const lines: string[] =
    account === undefined
      ? [`Probe of ${MARKET_TARGET}: the venue's public market list`]
      : [
          `Probe of account ${account.name}`,
          `  collateral ids: ${account.collateralIds.join(", ")}`,
          `  auth: ${authenticator(account.auth).shown}`,
          `  extra headers: ${extraHeaders.join(", ") || "none"}`,
        ];
  const { startedAt, minIntervalSeconds } = input.collection;
  const collection =
    log === undefined || startedAt === undefined
      ? "Collection: none finished before this probe's deadline; no data"
      : `Collection: started at ${new Date(startedAt).toISOString()} by ${log.startedBy}; every probe served it gets this report (one collection per account per ${minIntervalSeconds} s, whoever asks)`;
  lines.push("", collection, "", "Requests (in the order they finished):");
  if (requests.length === 0) lines.push("  none");
  for (const r of requests) {
    lines.push(`  ${r.endpoint.padEnd(15)} GET ${r.target} -> ${r.result} in ${r.durationMs.toFixed(1)} ms`);
    lines.push(`  ${"".padEnd(15)} headers sent: ${r.headerNames.join(", ")} (values not shown)`);
  }
  lines.push("", "Endpoints:");
  const row = (o: (typeof result.accounts)[number]["outcomes"][number]): string => {
    const status = o.ok ? "ok" : `FAILED (${o.reason}): ${o.message ?? ""}`;
    return `  ${o.endpoint.padEnd(15)} ${status} in ${(o.durationSeconds * 1000).toFixed(1)} ms`;
  };
  // Each account's history line sits under its orders_history row, whatever row comes after it.
  for (const a of result.accounts) {
    for (const o of a.outcomes) {
      lines.push(row(o));
      if (o.endpoint === "orders_history" && a.history !== undefined) lines.push(historyLine(a.history));
    }
  }
  if (result.markets) lines.push(row(result.markets.outcome));
  lines.push("", "Validation problems (missing or malformed fields, series dropped):");
  if (input.dropped > 0) lines.push(`  ${input.dropped} series dropped over the series cap (scrape.max_series)`);
  if (invalid.size === 0 && input.dropped === 0) lines.push("  none");
  for (const [key, n] of invalid) lines.push(`  ${key} x${n}`);
  lines.push("", "Metrics:", input.exposition);
  return lines.join("\n");
}
