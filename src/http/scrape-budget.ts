// A scrape's budget: the seconds Prometheus gives it (X-Prometheus-Scrape-Timeout-Seconds), less the offset, within the bounds.

/** offsetSeconds is subtracted from the header, so the answer reaches Prometheus before it gives up. */
export type TimeoutPolicy = Record<"defaultTimeoutSeconds" | "timeoutOffsetSeconds" | "maxTimeoutSeconds", number>;

/** Seconds a scrape may spend by Prometheus's X-Prometheus-Scrape-Timeout-Seconds header, or the one-line reason (a 400) it is refused. */
export function scrapeBudgetSeconds(header: string | undefined, policy: TimeoutPolicy): number | string {
  if (header === undefined) return Math.min(policy.defaultTimeoutSeconds, policy.maxTimeoutSeconds);
  const text = header.trim();
  // Any decimal spelling of a number (10, 10.0, 1e1, 1E+1) means the same budget; hex, Infinity and signs do not read.
  // Each digit matches one way only, so a client's 16,000 digits cost linear time, not quadratic.
  const seconds = /^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return "X-Prometheus-Scrape-Timeout-Seconds: expected a positive number of seconds";
  return Math.max(Math.min(seconds - policy.timeoutOffsetSeconds, policy.maxTimeoutSeconds), Math.min(seconds / 2, 0.1));
}
