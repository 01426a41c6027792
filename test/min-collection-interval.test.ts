// The minimum collection interval on a fake clock: scrapes of /metrics and /probe inside it are answered
// from the account's last collection, the first one after it collects again, and 0 collects every time.

import { afterEach, describe, expect, it } from "vitest";
import { type ClockedExporter, START_MS, startClockedExporter } from "./helpers/clocked-exporter.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { ACCOUNT, MARKETS } from "./helpers/tiny-venue.js";

const INTERVAL_S = 10;

interface Rig extends Omit<ClockedExporter, "get"> {
  /** A scrape answered 200, as samples. */
  get(path: string): Promise<ReturnType<typeof parseExposition>>;
}

let rig: ClockedExporter | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function balance(value: string): Record<string, unknown> {
  return { collateralBalance: value, availableMargin: "1", totalInvested: "0", totalMargin: "1", totalUnrealizedPnl: "0", positions: [] };
}

// The market list is not cached by its own setting (the rig's): it follows the minimum interval too.
async function start(intervalSeconds: number): Promise<Rig> {
  const r = await startClockedExporter({ venue: { account: balance("1") }, env: { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: String(intervalSeconds) } });
  rig = r;
  const get = async (path: string) => {
    const res = await r.get(path);
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  };
  return { ...r, get };
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
