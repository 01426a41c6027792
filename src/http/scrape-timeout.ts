// The scrape's time budget from Prometheus's X-Prometheus-Scrape-Timeout-Seconds header.

export interface TimeoutPolicy {
  defaultSeconds: number;
  /** Subtracted from the header so the answer reaches Prometheus before it gives up. */
  offsetSeconds: number;
  maxSeconds: number;
}

/** Seconds this scrape may spend, or the one-line reason (a 400) the header is refused. */
export function scrapeBudgetSeconds(header: undefined, policy: TimeoutPolicy): number;
export function scrapeBudgetSeconds(header: string | undefined, policy: TimeoutPolicy): number | string;
export function scrapeBudgetSeconds(header: string | undefined, policy: TimeoutPolicy): number | string {
  if (header === undefined) return Math.min(policy.defaultSeconds, policy.maxSeconds);
  const text = header.trim();
  // Any decimal spelling of a number (10, 10.0, 1e1, 1E+1) means the same budget; hex, Infinity and signs do not read.
  const seconds = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return "X-Prometheus-Scrape-Timeout-Seconds: expected a positive number of seconds";
  const budget = Math.min(seconds - policy.offsetSeconds, policy.maxSeconds);
  return Math.max(budget, Math.min(seconds / 2, 0.1));
}
