// Test copies of the shipped rule file and Alertmanager configuration: only timings, the runbook base and webhook URLs differ.

import { parse } from "yaml";

export const SHIPPED_RUNBOOK_BASE = "http://localhost:9842/runbooks/";
export const SHIPPED_WEBHOOK = "http://webhook:5001";

/** A gap window of the rules, `last_over_time(selector[Nm]`: the selector, then N. */
const GAP_WINDOW = /(last_over_time\([^[\]()]*)\[(\d+)m\]/g;
const GAP_WINDOW_ANY = /(last_over_time\([^[\]()]*)\[\w+\]/g;
/** A trend window of the rules, `deriv(selector[Nm]`. */
const TREND_WINDOW = /(deriv\([^[\]()]*)\[(\d+)m\]/g;
const TREND_WINDOW_ANY = /(deriv\([^[\]()]*)\[\w+\]/g;
/** A horizon read with its default: seconds of shipped time, scaled as the scrape interval in the test copy. */
const HORIZON =
  /(max by \(account\) \(last_over_time\(trading_account_alert_threshold_seconds\{threshold="margin_\w+_horizon_seconds"\}\[\w+\]\)\))(\s+or\s+)(\d+) \* /g;
const HORIZON_ANY =
  /\(?(max by \(account\) \(last_over_time\(trading_account_alert_threshold_seconds\{threshold="margin_\w+_horizon_seconds"\}\[\w+\]\)\))(?: \/ \d+\))?(\s+or\s+)\d+ \* /g;

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`test copy of a shipped file: ${message}`);
}

/** The shipped scrape interval (15 s) over the tests' (1 s): the rules' gap windows are scaled by it, so they stay four scrapes. */
export const SCRAPE_SCALE = 15;

/**
 * The shipped rules with every `for: Nm` made N*2 seconds (their order kept) and every gap window
 * `last_over_time(series[Nm])` and trend window `deriv(series[Nm])` N*60/SCRAPE_SCALE seconds (as many scrape intervals of the tests' 1 s
 * as the shipped value has of 15 s), and the horizons (seconds of that time) divided by SCRAPE_SCALE,
 * unless `shorten` is false, and the runbook base replaced by `base`.
 */
export function testRules(shipped: string, base = SHIPPED_RUNBOOK_BASE, shorten = true): string {
  check((shipped.match(/^\s+for: \d+m$/gm) ?? []).length > 5, "the rule file has no `for: Nm` to shorten");
  check((shipped.match(GAP_WINDOW) ?? []).length > 5, "the rule file has no `last_over_time(series[Nm])` to shorten");
  check(shipped.split(SHIPPED_RUNBOOK_BASE).length === 2, `the rule file names ${SHIPPED_RUNBOOK_BASE} other than once`);
  const timed = shorten
    ? shipped
        .replace(/^(\s+for: )(\d+)m$/gm, (_l, head: string, n: string) => `${head}${Number(n) * 2}s`)
        .replace(GAP_WINDOW, (_l, head: string, n: string) => `${head}[${(Number(n) * 60) / SCRAPE_SCALE}s]`)
        .replace(TREND_WINDOW, (_l, head: string, n: string) => `${head}[${(Number(n) * 60) / SCRAPE_SCALE}s]`)
        .replace(HORIZON, (_l, read: string, or: string, n: string) => `(${read} / ${SCRAPE_SCALE})${or}${Number(n) / SCRAPE_SCALE} * `)
    : shipped;
  return timed.replace(SHIPPED_RUNBOOK_BASE, base);
}

/** The shipped Alertmanager config with every group_wait and group_interval 1 s (unless `shorten` is false) and the webhooks sent to `receiver`. */
export function testAlertmanagerConfig(shipped: string, receiver: string, shorten = true): string {
  check(shipped.split(SHIPPED_WEBHOOK).length > 2, `the configuration names ${SHIPPED_WEBHOOK} less than twice`);
  const timed = shorten ? shipped.replace(/^(\s+group_(?:wait|interval): )\S+$/gm, "$11s") : shipped;
  return timed.split(SHIPPED_WEBHOOK).join(receiver);
}

/** Parsed YAML with what the test copies change put back to fixed values, to compare a copy with the shipped file. */
export function normalized(text: string): unknown {
  return parse(
    text
      .replace(/^(\s+for: )\S+$/gm, "$1X")
      .replace(GAP_WINDOW_ANY, "$1[X]")
      .replace(TREND_WINDOW_ANY, "$1[X]")
      .replace(HORIZON_ANY, "$1$2X * ")
      .replace(/^(\s+group_(?:wait|interval): )\S+$/gm, "$1X")
      .replace(/url: http:\/\/\S+?\/runbooks\/$/m, "url: BASE")
      .replace(/url: http:\/\/[^/\s]+\/(critical|warning)$/gm, "url: WEBHOOK/$1"),
  ) as unknown;
}
