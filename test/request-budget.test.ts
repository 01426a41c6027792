// venue.max_requests_per_second: the venue never hears more than the budget in any second, whoever scrapes, and
// every account is collected in turn when the budget is the bottleneck.

import { afterEach, describe, expect, it, vi } from "vitest";
import { Exporter } from "../src/scrape-answers.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { Deadline } from "../src/util/deadline.js";
import { RequestPace } from "../src/venue/request-pace.js";
import { configFromObject } from "./helpers/config-files.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

let venue: TinyVenue | undefined;
let exporter: Exporter | undefined;
afterEach(async () => {
  await exporter?.close();
  await venue?.close();
  exporter = venue = undefined;
});

/** The most requests that arrived within any window of `ms`. */
function busiestWindow(times: number[], ms: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("the venue's request budget", () => {
  it("holds across a /metrics of 12 accounts: at most the budget in any second, and every account up", async () => {
    venue = await startTinyVenue({});
    const accounts = Array.from({ length: 12 }, (_, i) => ({ name: `a${i}`, collateral_ids: ["USDC"], auth: { type: "api_key", key: "k" } }));
    const config = configFromObject({ venue: { base_url: venue.url, max_requests_per_second: 10 }, accounts }, {}, process.cwd());
    exporter = new Exporter(config, createLogger("silent"), new SelfMetrics({ defaultMetrics: false }));
    const samples = parseExposition((await exporter.metrics(new Deadline(20))).text());
    // 12 accounts × 3 endpoints (one history page each) and the market list.
    expect(venue.arrivals.length).toBe(37);
    // Sent 100 ms apart; arrival on loopback may move a request by a millisecond or two, not by 100.
    expect(
      busiestWindow(
        venue.arrivals.map((a) => a.at),
        950,
      ),
    ).toBeLessThanOrEqual(10);
    for (const a of accounts) expect(valueOf(samples, "trading_up", { account: a.name })).toBe(1);
    expect(valueOf(samples, "trading_exporter_venue_request_budget_per_second")).toBe(10);
    expect(valueOf(samples, "trading_exporter_venue_budget_waits_total")).toBeGreaterThan(20);
  });

  it("holds for probes of six accounts at once: each up, the budget kept", async () => {
    venue = await startTinyVenue({});
    const accounts = Array.from({ length: 6 }, (_, i) => ({ name: `a${i}`, collateral_ids: ["USDC"], auth: { type: "api_key", key: `k${i}` } }));
    const config = configFromObject({ venue: { base_url: venue.url, max_requests_per_second: 20 }, accounts }, {}, process.cwd());
    exporter = new Exporter(config, createLogger("silent"), new SelfMetrics({ defaultMetrics: false }));
    const e = exporter;
    const probes = accounts.map((a) => e.metrics(new Deadline(20), { accounts: [a.name], marketFamilies: false }));
    const answers = await Promise.all(probes);
    for (const [i, answer] of answers.entries()) expect(valueOf(parseExposition(answer.text()), "trading_up", { account: `a${i}` })).toBe(1);
    expect(venue.arrivals.length).toBe(6 * 3 + 1);
    expect(
      busiestWindow(
        venue.arrivals.map((a) => a.at),
        950,
      ),
    ).toBeLessThanOrEqual(20);
  });
});

describe("RequestPace", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("frees the turn of a request whose deadline passes while it waits, so the next goes in its place", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const pace = new RequestPace(10);
    await pace.take(new AbortController().signal);
    const gone = new AbortController();
    const waiting = pace.take(gone.signal);
    gone.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    let went = false;
    const next = pace.take(new AbortController().signal).then(() => {
      went = true;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(went).toBe(false);
    // One gap (100 ms) after the first, not two: the aborted request took no turn.
    await vi.advanceTimersByTimeAsync(1);
    await next;
    expect(went).toBe(true);
  });
});
