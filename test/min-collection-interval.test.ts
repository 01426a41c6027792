// The minimum collection interval on a fake clock: scrapes of /metrics and /probe inside it are answered
// from the account's last collection, the first one after it collects again, and 0 collects every time.

import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "../src/config/load.js";
import { Exporter } from "../src/exporter.js";
import { createApp } from "../src/http/app.js";
import { listen, type RunningServer } from "../src/http/server.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { ACCOUNT, MARKETS, startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

const START_MS = 1_700_000_000_000;
const INTERVAL_S = 10;

interface Rig {
  venue: TinyVenue;
  exporter: Exporter;
  server: RunningServer;
  /** The exporter's clock: tests move it by hand. */
  clock: { now: number };
  get(path: string): Promise<ReturnType<typeof parseExposition>>;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.server.close(100);
  await rig?.exporter.close();
  await rig?.venue.close();
  rig = undefined;
});

function balance(value: string): Record<string, unknown> {
  return { collateralBalance: value, availableMargin: "1", totalInvested: "0", totalMargin: "1", totalUnrealizedPnl: "0", positions: [] };
}

async function start(intervalSeconds: number): Promise<Rig> {
  const venue = await startTinyVenue({ account: balance("1") });
  const config = configFromEnv({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "acct",
    // Not cached by its own setting: the market list follows the minimum interval too.
    TRADING_MARKETS_CACHE_SECONDS: "0",
    TRADING_MIN_COLLECTION_INTERVAL_SECONDS: String(intervalSeconds),
  });
  const clock = { now: START_MS };
  const logger = createLogger("error", new Writable({ write: (_c, _e, done) => done() }));
  const exporter = new Exporter(config, logger, new SelfMetrics({ defaultMetrics: false }), () => clock.now);
  const server = await listen(
    createApp({ exporter, logger, timeouts: { defaultSeconds: 5, offsetSeconds: 0.5, maxSeconds: 10 }, maxInFlight: 5 }),
    "127.0.0.1",
    0,
  );
  const get = async (path: string) => {
    const res = await fetch(new URL(path, server.url));
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };
  rig = { venue, exporter, server, clock, get };
  return rig;
}

describe.each(["/metrics", "/probe?target=acct"])("%s with a minimum collection interval", (path) => {
  it("answers scrapes inside the interval from the last collection and collects again after it", async () => {
    const r = await start(INTERVAL_S);
    const first = await r.get(path);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(valueOf(first, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000);
    expect(valueOf(first, "trading_account_collateral_balance", { account: "acct" })).toBe(1);

    // The venue moves, but a scrape just inside the interval is answered from the first collection.
    r.venue.options.account = balance("2");
    r.clock.now = START_MS + INTERVAL_S * 1000 - 1;
    const inside = await r.get(path);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(r.venue.requests.get(MARKETS)).toBe(1);
    expect(valueOf(inside, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000);
    expect(valueOf(inside, "trading_account_collateral_balance", { account: "acct" })).toBe(1);

    // At the interval: a new collection, and its start time.
    r.clock.now = START_MS + INTERVAL_S * 1000;
    const after = await r.get(path);
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
    expect(r.venue.requests.get(MARKETS)).toBe(2);
    expect(valueOf(after, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000 + INTERVAL_S);
    expect(valueOf(after, "trading_account_collateral_balance", { account: "acct" })).toBe(2);
  });

  it("collects again when the clock is stepped back, rather than serving an old collection until it catches up", async () => {
    const r = await start(INTERVAL_S);
    await r.get(path);
    r.clock.now = START_MS - 60_000;
    const back = await r.get(path);
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
    expect(valueOf(back, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000 - 60);
  });

  it("collects on every scrape with 0", async () => {
    const r = await start(0);
    await r.get(path);
    await r.get(path);
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
  });
});

describe("/metrics and /probe together", () => {
  it("share one collection per account inside the interval, whichever path collected it", async () => {
    const r = await start(INTERVAL_S);
    await r.get("/probe?target=acct");
    r.clock.now = START_MS + 5_000;
    const metrics = await r.get("/metrics");
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(valueOf(metrics, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000);
  });

  it("reads the exporter's own metrics afresh on a /metrics scrape served from the last collection", async () => {
    const r = await start(INTERVAL_S);
    expect(valueOf(await r.get("/metrics"), "trading_exporter_config_last_reload_successful")).toBe(1);
    r.exporter.self.configLoaded(false);
    r.clock.now = START_MS + 5_000;
    const reused = await r.get("/metrics");
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(valueOf(reused, "trading_exporter_config_last_reload_successful")).toBe(0);
  });
});
