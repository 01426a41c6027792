// The fault matrix: every fault the simulator can inject, on every endpoint. The exporter must
// answer 200 within the deadline, mark the faulted endpoint with the right reason, keep every other
// endpoint's series exactly as they were, and call the venue no more than the retry rules allow.

import { afterEach, describe, expect, it } from "vitest";
import type { FaultSpec, SimEndpoint } from "../tools/simulator/server.js";
import { parseExposition, valueOf, type ParsedSample } from "./helpers/exposition.js";
import { startStack, type Stack } from "./helpers/stack.js";

const ENDPOINTS: SimEndpoint[] = ["account_info", "orders_active", "orders_history", "markets"];

/** Prometheus's timeout for these scrapes; the exporter's budget is this minus the 0.5 s offset. */
const SCRAPE_TIMEOUT_S = 3;

interface Expectation {
  fault: Omit<FaultSpec, "endpoint">;
  /** Failure reason, or undefined when the endpoint must still succeed. */
  reason: string | undefined;
  /** Requests the faulted endpoint may receive in one scrape (retries included). */
  requests: number;
  /** For faults that keep the endpoint up: invalid fields must be counted. */
  invalidFields?: boolean;
}

const MATRIX: Record<string, Expectation> = {
  "short latency": { fault: { kind: "latency", latencyMs: 100 }, reason: undefined, requests: 1 },
  "latency past the deadline": { fault: { kind: "latency", latencyMs: 5000 }, reason: "timeout", requests: 1 },
  "trickling body": { fault: { kind: "trickle", latencyMs: 5000 }, reason: "timeout", requests: 1 },
  hang: { fault: { kind: "hang" }, reason: "timeout", requests: 1 },
  "status 500": { fault: { kind: "status", status: 500 }, reason: "http_5xx", requests: 2 },
  "status 503": { fault: { kind: "status", status: 503 }, reason: "http_5xx", requests: 2 },
  "status 429": { fault: { kind: "status", status: 429, retryAfter: "30" }, reason: "rate_limited", requests: 1 },
  "status 418": { fault: { kind: "status", status: 418 }, reason: "rate_limited", requests: 1 },
  "status 401": { fault: { kind: "status", status: 401 }, reason: "auth", requests: 1 },
  "status 403": { fault: { kind: "status", status: 403 }, reason: "auth", requests: 1 },
  "status 404": { fault: { kind: "status", status: 404 }, reason: "http_4xx", requests: 1 },
  "malformed JSON": { fault: { kind: "malformed_json" }, reason: "invalid_json", requests: 1 },
  "truncated JSON": { fault: { kind: "truncated_json" }, reason: "invalid_json", requests: 1 },
  "wrong types": { fault: { kind: "wrong_types" }, reason: undefined, requests: 1, invalidFields: true },
  "missing fields": { fault: { kind: "missing_fields" }, reason: undefined, requests: 1, invalidFields: true },
  // Past 1 MiB and dense in objects, so streamed; the items past venue.max_items are counted, not read.
  "empty objects": { fault: { kind: "empty_objects", bytes: 1_200_000 }, reason: undefined, requests: 1, invalidFields: true },
  "wrong container": { fault: { kind: "wrong_container" }, reason: "invalid_schema", requests: 1 },
  "oversized body": { fault: { kind: "oversized", bytes: 12 * 1024 * 1024 }, reason: "too_large", requests: 1 },
  "gzip bomb": { fault: { kind: "gzip_bomb", bytes: 64 * 1024 * 1024 }, reason: "too_large", requests: 1 },
  "redirect to another host": { fault: { kind: "redirect" }, reason: "redirect", requests: 1 },
  "connection reset": { fault: { kind: "reset" }, reason: "network", requests: 2 },
};

/** Which endpoint a family's series come from. */
function sourceOf(name: string): SimEndpoint | undefined {
  // Joined from account_info and markets: absent when either fails, so owned by neither here.
  if (/^trading_position_(initial_margin_requirement|size_limit_ratio|margin_input_missing)$/.test(name)) return undefined;
  // The account's configured thresholds: exported whatever its endpoints answer.
  if (name.startsWith("trading_account_alert_threshold")) return undefined;
  if (name.startsWith("trading_account_") || name.startsWith("trading_position_")) return "account_info";
  if (name.startsWith("trading_active_orders")) return "orders_active";
  if (name.startsWith("trading_order_history_")) return "orders_history";
  if (name.startsWith("trading_market_") && name !== "trading_market_list_age_seconds") return "markets";
  return undefined;
}

function key(s: ParsedSample): string {
  return `${s.name}${JSON.stringify(s.labels)} ${s.value}`;
}

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function timedScrape(s: Stack): Promise<{ status: number; samples: ParsedSample[]; seconds: number }> {
  const started = performance.now();
  const res = await s.get("/metrics", { "x-prometheus-scrape-timeout-seconds": String(SCRAPE_TIMEOUT_S) });
  const text = await res.text();
  return { status: res.status, samples: parseExposition(text), seconds: (performance.now() - started) / 1000 };
}

describe.each(ENDPOINTS)("a fault on %s", (endpoint) => {
  it.each(Object.entries(MATRIX))("%s", async (_name, expected) => {
    // The collection's own deadline inside the scrape's, so a slow endpoint shows as this scrape's timeout
    // (with the default, longer one the scrape would be answered with the previous collection).
    stack = await startStack({ env: { TRADING_MARKETS_CACHE_SECONDS: "0", TRADING_SCRAPE_TIMEOUT_SECONDS: "2" } });
    stack.venue.resetStats();
    const baseline = await timedScrape(stack);
    const baselineRequests = stack.venue.stats().requests[endpoint];
    stack.venue.resetStats();
    stack.venue.setFaults([{ endpoint, ...expected.fault }]);

    const { status, samples, seconds } = await timedScrape(stack);
    expect(status).toBe(200);
    expect(seconds).toBeLessThan(SCRAPE_TIMEOUT_S);
    const account = endpoint === "markets" ? {} : { account: "sim" };
    expect(valueOf(samples, "trading_scrape_success", { endpoint, ...account })).toBe(expected.reason ? 0 : 1);
    for (const other of ENDPOINTS.filter((e) => e !== endpoint)) {
      expect(valueOf(samples, "trading_scrape_success", { endpoint: other })).toBe(1);
    }
    const errors = samples.filter((s) => s.name === "trading_exporter_upstream_errors_total" && s.labels.endpoint === endpoint);
    const counted = Object.fromEntries(errors.filter((s) => s.value > 0).map((s) => [s.labels.reason, s.value]));
    expect(counted).toEqual(expected.reason ? { [expected.reason]: 1 } : {});
    if (expected.invalidFields) {
      const invalid = samples.filter((s) => s.name === "trading_exporter_invalid_fields_total" && s.labels.endpoint === endpoint);
      expect(invalid.reduce((n, s) => n + s.value, 0)).toBeGreaterThan(0);
    }

    // Every series of the healthy endpoints is there with the value it had before the fault.
    const now = new Set(samples.map(key));
    const lost = baseline.samples.filter((s) => {
      const source = sourceOf(s.name);
      return source !== undefined && source !== endpoint && !now.has(key(s));
    });
    expect(lost.map(key)).toEqual([]);
    // A failed endpoint's own series are absent, never stale.
    if (expected.reason) {
      expect(samples.filter((s) => sourceOf(s.name) === endpoint).map((s) => s.name)).toEqual([]);
    }
    // Retries: at most one per call, and only for network errors and 5xx. The history asks the baseline's page count
    // at once, and a fault that keeps the endpoint up costs no more than that.
    const requests = stack.venue.stats().requests[endpoint];
    const calls = endpoint === "account_info" ? 2 : endpoint === "orders_history" ? baselineRequests : 1;
    if (expected.reason === undefined) expect(requests).toBe(endpoint === "orders_history" ? calls : baselineRequests);
    else if (endpoint !== "orders_history") expect(requests).toBe(expected.requests * calls);
    else {
      // The pages after the first are dropped once it fails: their retries, if any, were already under way.
      expect(requests).toBeGreaterThanOrEqual(calls + expected.requests - 1);
      expect(requests).toBeLessThanOrEqual(expected.requests * calls);
    }
  });
});

describe("rate limiting", () => {
  it("skips the endpoint until Retry-After has passed, without calling the venue", async () => {
    stack = await startStack();
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "status", status: 429, retryAfter: "120" }]);
    await timedScrape(stack);
    stack.venue.clearFaults();
    stack.venue.resetStats();
    const { samples } = await timedScrape(stack);
    expect(stack.venue.stats().requests.orders_active).toBe(0);
    expect(stack.venue.stats().requests.account_info).toBe(2);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active" })).toBe(0);
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "rate_limited" })).toBe(2);
    expect(samples.some((s) => s.name === "trading_active_orders")).toBe(false);
  });

  it("tolerates a garbage Retry-After and does not skip on it", async () => {
    stack = await startStack();
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "status", status: 429, retryAfter: "soon-ish", times: 1 }]);
    await timedScrape(stack);
    stack.venue.resetStats();
    const { samples } = await timedScrape(stack);
    expect(stack.venue.stats().requests.orders_active).toBe(1);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "orders_active" })).toBe(1);
  });
});
