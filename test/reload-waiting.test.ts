// A reload while scrapes wait for the venue: each is served by the configuration it arrived on; a probe that arrives
// after it of an account it removed is a 400 as any unknown target, never a 500 or an error-level log line.

import { afterEach, describe, expect, it } from "vitest";
import type { Config } from "../src/config/types.js";
import { configFromObject } from "./helpers/config-files.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** A config of accounts `names` on the simulator, every scrape collecting, with the scrape limits given. */
function configOf(url: string, names: string[], scrape: Record<string, number>): Config {
  const accounts = names.map((name) => ({ name, collateral_ids: ["USDC"], auth: { type: "api_key", key: SIM_KEY } }));
  return configFromObject(
    { venue: { base_url: url, markets_cache_seconds: 0 }, accounts, scrape },
    { TRADING_LISTEN_ADDRESS: "127.0.0.1:0", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" },
    process.cwd(),
  );
}

/** Requests the venue has seen: one more once a collection is under way. */
const venueRequests = (s: Stack) => Object.values(s.venue.stats().requests).reduce((a, b) => a + b, 0);

/** Log lines at error level. */
const errorLines = (logs: string[]) => logs.filter((l) => (JSON.parse(l) as { level: string }).level === "ERROR");

describe("a reload while scrapes wait for the venue", () => {
  it("at an in-flight limit of 1: probes in flight are answered 200, a later probe of a removed account is a 400", async () => {
    let names = ["a1", "a2"];
    stack = await startStack({ source: (url) => configOf(url, names, { max_in_flight: 1 }) });
    const s = stack;
    s.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 400 }]);
    const before = s.venue.stats().requests.account_info ?? 0;
    const removed = s.get("/probe?target=a1");
    const kept = s.get("/probe?target=a2");
    // Both probes are in flight once their collections have asked the venue.
    await expect.poll(() => s.venue.stats().requests.account_info ?? 0, { timeout: 2000, interval: 10 }).toBe(before + 2);
    const inFlight = s.get("/metrics");
    names = ["a2", "b1"];
    expect((await s.reload()).status).toBe(200);
    const [m, r, k] = await Promise.all([inFlight, removed, kept]);
    expect([m.status, r.status, k.status]).toEqual([200, 200, 200]);
    expect(await r.text()).toMatch(/^trading_up\{account="a1"\} 1$/m);
    expect(await k.text()).toMatch(/^trading_up\{account="a2"\} 1$/m);
    const after = await s.get("/probe?target=a1");
    expect(after.status).toBe(400);
    expect(await after.text()).toBe("target: not a configured account name\n");
    expect(errorLines(s.logs)).toEqual([]);
  });

  it("200 concurrent probes across a reload that removes their accounts get only 200 or 400, and no error-level line", async () => {
    let names = ["a1", "a2"];
    stack = await startStack({ source: (url) => configOf(url, names, { max_in_flight: 40 }) });
    const s = stack;
    s.venue.setFaults([{ endpoint: "*", kind: "latency", latencyMs: 200 }]);
    const before = venueRequests(s);
    const probes = Array.from({ length: 200 }, (_, i) => s.get(`/probe?target=a${(i % 2) + 1}`));
    await expect.poll(() => venueRequests(s), { timeout: 2000, interval: 10 }).toBeGreaterThan(before);
    names = ["b1", "b2", "b3"];
    expect((await s.reload()).status).toBe(200);
    const late = Array.from({ length: 20 }, (_, i) => s.get(`/probe?target=a${(i % 2) + 1}`));
    const statuses = (await Promise.all(probes)).map((r) => r.status);
    const counts = Object.fromEntries([...new Set(statuses)].map((code) => [code, statuses.filter((c) => c === code).length]));
    expect(counts["200"] ?? 0).toBeGreaterThan(0);
    expect(statuses.every((code) => code === 200 || code === 400)).toBe(true);
    // The probes that arrived after the reload find no such account.
    expect((await Promise.all(late)).map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 400));
    expect(errorLines(s.logs)).toEqual([]);
    expect((await s.get("/probe?target=b1")).status).toBe(200);
  });
});
