// A collection shared by every scraper runs under its own deadline and behind the same admission, whoever
// starts it: a short deadline, a debug probe or a reload cannot blind or multiply what the others get.

import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { joinOrStart } from "../src/scrape/shared-collections.js";
import { Deadline } from "../src/util/deadline.js";
import { type ClockedExporter, START_MS, startClockedExporter } from "./helpers/clocked-exporter.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { ACCOUNT, ACTIVE, HISTORY, MARKETS } from "./helpers/tiny-venue.js";

const INTERVAL_S = 10;

interface Rig extends ClockedExporter {
  /** Holds every venue answer until the returned release is called. */
  hold(): () => void;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function start(env: Record<string, string> = {}, maxInFlight = 100, lines?: string[]): Promise<Rig> {
  const r = await startClockedExporter({
    env: { TRADING_MIN_COLLECTION_INTERVAL_SECONDS: String(INTERVAL_S), ...env },
    maxInFlight,
    ...(lines === undefined ? {} : { lines }),
  });
  const hold = () => {
    const gate = Promise.withResolvers<void>();
    r.venue.options.hold = gate.promise;
    return () => {
      delete r.venue.options.hold;
      gate.resolve();
    };
  };
  rig = { ...r, hold };
  return rig;
}

async function samples(res: Response) {
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

const venueCalls = (r: Rig) => [ACCOUNT, ACTIVE, HISTORY, MARKETS].reduce((n, path) => n + (r.venue.requests.get(path) ?? 0), 0);

describe.each(["/metrics", "/probe?target=acct"])("%s: a collection owns its deadline", (path) => {
  it("a scrape with a tiny deadline is answered with what is done, the rest timed out, and the next scraper gets the collection it started", async () => {
    const r = await start();
    expect(valueOf(await samples(await r.get(path)), "trading_up", { account: "acct" })).toBe(1);
    r.clock.now = START_MS + INTERVAL_S * 1000;
    const release = r.hold();
    // Answered while the venue still holds every answer: the short scrape did not wait for the collection it started.
    const short = await samples(await r.get(path, "0.000001"));
    expect(valueOf(short, "trading_up", { account: "acct" })).toBe(0);
    for (const endpoint of ["account_info", "orders_active", "orders_history"]) {
      expect(valueOf(short, "trading_scrape_success", { account: "acct", endpoint })).toBe(0);
    }
    // The collection under way dates the answer, which has no series of its endpoints.
    expect(valueOf(short, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000 + INTERVAL_S);
    expect(short.some((s) => s.name === "trading_account_collateral_balance")).toBe(false);
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
    const long = r.get(path, "10");
    r.clock.now += 1000;
    release();
    const after = await samples(await long);
    expect(valueOf(after, "trading_up", { account: "acct" })).toBe(1);
    // The collection the short scrape started, joined: no second request, and its start time.
    expect(valueOf(after, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000 + INTERVAL_S);
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
  });

  it("an HA pair's 1 s and 10 s scrapers against a venue slower than 1 s: the 10 s one is up from the start", async () => {
    const r = await start();
    const release = r.hold();
    const short = await samples(await r.get(path, "1"));
    // Nothing collected yet: the short scrape says so within its deadline.
    expect(valueOf(short, "trading_up", { account: "acct" })).toBe(0);
    const long = r.get(path, "10");
    release();
    const after = await samples(await long);
    expect(valueOf(after, "trading_up", { account: "acct" })).toBe(1);
    expect(valueOf(after, "trading_collection_timestamp_seconds", { account: "acct" })).toBe(START_MS / 1000);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
  });
});

describe("a collection that fails under its own deadline", () => {
  it("is the truth for its interval: every scraper gets it, and none retries inside the interval", async () => {
    const r = await start({ TRADING_SCRAPE_TIMEOUT_SECONDS: "0.2" });
    const release = r.hold();
    const first = await samples(await r.get("/probe?target=acct", "30"));
    expect(valueOf(first, "trading_up", { account: "acct" })).toBe(0);
    expect(valueOf(first, "trading_scrape_success", { account: "acct", endpoint: "account_info" })).toBe(0);
    release();
    r.clock.now += INTERVAL_S * 1000 - 1;
    const inside = await samples(await r.get("/probe?target=acct", "30"));
    expect(valueOf(inside, "trading_up", { account: "acct" })).toBe(0);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
  });
});

describe("the collection's deadline on reload", () => {
  it("is kept, as the scrape deadlines it is read with are: a reload that raises it waits for a restart", async () => {
    const r = await start({ TRADING_SCRAPE_TIMEOUT_SECONDS: "0.2" });
    r.exporter.reload(configFromEnv({ ...r.env, TRADING_SCRAPE_TIMEOUT_SECONDS: "30" }));
    const release = r.hold();
    const answer = await samples(await r.get("/probe?target=acct", "30"));
    expect(valueOf(answer, "trading_up", { account: "acct" })).toBe(0);
    release();
  });
});

describe("debug probes are admitted like any scrape", () => {
  it("50 concurrent debug probes cost the venue one collection", async () => {
    const r = await start();
    const release = r.hold();
    const probes = Array.from({ length: 50 }, () => r.get("/probe?target=acct&debug=true"));
    await expect.poll(() => r.venue.requests.get(ACCOUNT) ?? 0).toBe(1);
    release();
    const texts = await Promise.all(probes.map(async (p) => (await p).text()));
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(r.venue.requests.get(MARKETS)).toBe(1);
    // One report of the one collection, its requests included, the same for every probe served it.
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toContain("Collection: started at 2023-11-14T22:13:20.000Z by a debug probe");
    expect(texts[0]).toContain(`GET ${ACCOUNT}?collateralId=USDC -> 200`);
    expect(texts[0]).toContain('trading_up{account="acct"} 1');
  });

  it("inside the minimum interval a debug probe sends no request and reports the collection served, with its trace", async () => {
    const r = await start();
    await samples(await r.get("/probe?target=acct"));
    const calls = venueCalls(r);
    r.clock.now += 5_000;
    const text = await (await r.get("/probe?target=acct&debug=true")).text();
    expect(venueCalls(r)).toBe(calls);
    expect(text).toContain("Collection: started at 2023-11-14T22:13:20.000Z by a probe");
    expect(text).toContain(`GET ${ACCOUNT}?collateralId=USDC -> 200`);
    // After the interval it collects, and says so.
    r.clock.now = START_MS + INTERVAL_S * 1000;
    const fresh = await (await r.get("/probe?target=acct&debug=true")).text();
    expect(fresh).toContain("Collection: started at 2023-11-14T22:13:30.000Z by a debug probe");
    expect(fresh).toContain(`GET ${ACCOUNT}?collateralId=USDC -> 200`);
  });

  it("writes one report's bytes to every debug probe served its collection, as plain text", async () => {
    const r = await start();
    const first = await r.exporter.debug(new Deadline(10), r.exporter.account("acct"));
    const again = await r.exporter.debug(new Deadline(10), r.exporter.account("acct"));
    expect(again).toBe(first);
    expect(again.plain()[0]).toBe(first.plain()[0]);
    const res = await r.get("/probe?target=acct&debug=true");
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe(first.text());
  });

  it("waiting for the venue holds no slot of --web.max-requests: probes past it are answered 200 from the one collection", async () => {
    const r = await start({}, 2);
    const release = r.hold();
    const probes = [...Array.from({ length: 5 }, () => r.get("/probe?target=acct&debug=true")), r.get("/probe?target=acct")];
    await expect.poll(() => r.venue.requests.get(ACCOUNT) ?? 0).toBe(1);
    release();
    for (const res of await Promise.all(probes)) expect(res.status).toBe(200);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
  });
});

describe("a collection the venue answers late", () => {
  it("counts a timeout once, when a scrape is answered without the endpoint, and not again when the collection ends", async () => {
    const lines: string[] = [];
    const r = await start({ TRADING_SCRAPE_TIMEOUT_SECONDS: "0.3" }, 100, lines);
    const timeouts = async () =>
      valueOf(parseExposition(await r.exporter.self.registry.metrics()), "trading_exporter_upstream_errors_total", {
        endpoint: "account_info",
        reason: "timeout",
      });
    expect(valueOf(await samples(await r.get("/probe?target=acct")), "trading_up", { account: "acct" })).toBe(1);
    r.clock.now = START_MS + INTERVAL_S * 1000;
    const release = r.hold();
    // The scrape gives up first (0.1 s) and is answered without the endpoints; the collection runs on to its 0.3 s.
    expect(valueOf(await samples(await r.get("/probe?target=acct", "0.6")), "trading_up", { account: "acct" })).toBe(0);
    expect(await timeouts()).toBe(1);
    // A scrape with time to wait joins the collection and is answered as it ends, at its own 0.3 s deadline:
    // the call is not counted a second time.
    expect(valueOf(await samples(await r.get("/probe?target=acct", "10")), "trading_up", { account: "acct" })).toBe(0);
    expect(await timeouts()).toBe(1);
    const calls = valueOf(parseExposition(await r.exporter.self.registry.metrics()), "trading_exporter_upstream_calls_total", { endpoint: "account_info" });
    expect(calls).toBe(2);
    release();
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ msg: "venue endpoint failing", endpoint: "account_info", account: "acct", reason: "timeout" }),
    );
  });
});

describe("a reload keeps what it did not change", () => {
  const limited = { status: 429, headers: { "retry-after": "300" }, body: "slow down" };

  it("keeps the venue's Retry-After, the last collection and the market cache for an unchanged account", async () => {
    const r = await start({ TRADING_MARKETS_CACHE_SECONDS: "600" });
    r.venue.options.raw = { [ACCOUNT]: limited };
    await samples(await r.get("/probe?target=acct"));
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    // Inside the interval: the collection is kept, so the venue hears nothing.
    const calls = venueCalls(r);
    r.exporter.reload(configFromEnv(r.env));
    await samples(await r.get("/probe?target=acct"));
    expect(venueCalls(r)).toBe(calls);
    // Ten rounds of reload, then a scrape after the interval: the 300 s of Retry-After still hold, and the market list its cache.
    for (let round = 1; round <= 10; round++) {
      r.exporter.reload(configFromEnv(r.env));
      r.clock.now = START_MS + round * INTERVAL_S * 1000;
      const answer = await samples(await r.get("/probe?target=acct"));
      expect(valueOf(answer, "trading_scrape_success", { account: "acct", endpoint: "account_info" })).toBe(0);
    }
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
    expect(r.venue.requests.get(MARKETS)).toBe(1);
    expect(r.venue.requests.get(ACTIVE)).toBe(11);
  });

  it("starts afresh for an account whose credentials changed: its next scrape calls the venue", async () => {
    const r = await start();
    r.venue.options.raw = { [ACCOUNT]: limited };
    await samples(await r.get("/probe?target=acct"));
    delete r.venue.options.raw;
    r.exporter.reload(configFromEnv({ ...r.env, TRADING_API_KEY: "key-two" }));
    const answer = await samples(await r.get("/probe?target=acct"));
    expect(r.venue.requests.get(ACCOUNT)).toBe(2);
    expect(valueOf(answer, "trading_up", { account: "acct" })).toBe(1);
  });
});

describe("the collection's deadline at the exporter", () => {
  it("a scrape whose deadline has passed is answered at once, and the collection it started still lands", async () => {
    const r = await start();
    const release = r.hold();
    const expired = new Deadline(0.001);
    await new Promise<void>((resolve) => expired.signal.addEventListener("abort", () => resolve(), { once: true }));
    const answer = await r.exporter.metrics(expired, { accounts: ["acct"], marketFamilies: false });
    expect(valueOf(parseExposition(answer.text()), "trading_up", { account: "acct" })).toBe(0);
    release();
    const later = await r.exporter.metrics(new Deadline(10), { accounts: ["acct"], marketFamilies: false });
    expect(valueOf(parseExposition(later.text()), "trading_up", { account: "acct" })).toBe(1);
    expect(r.venue.requests.get(ACCOUNT)).toBe(1);
  });
});

describe("the market list's cache", () => {
  it("is read again when the clock is stepped back, as an account's collection is", async () => {
    const r = await start({ TRADING_MARKETS_CACHE_SECONDS: "600" });
    const probe = () => r.exporter.metrics(new Deadline(10), { accounts: ["acct"], marketFamilies: false });
    await probe();
    r.clock.now = START_MS + 60_000;
    await probe();
    expect(r.venue.requests.get(MARKETS)).toBe(1);
    r.clock.now = START_MS - 60_000;
    await probe();
    expect(r.venue.requests.get(MARKETS)).toBe(2);
  });
});

describe("joinOrStart when a collection rejects", () => {
  it("hands the rejection to the scrapes joined to it, raises no unhandled rejection, and starts the next one afresh", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const slot: { shared: undefined | { startedAt: number; collection: { done: Promise<number>; partial(): number }; value?: number } } = {
        shared: undefined,
      };
      const get = (start: () => { done: Promise<number>; partial(): number }) => joinOrStart(slot, () => 0, deadline, start);
      const deadline = new Deadline(5);
      const collection = (done: Promise<number>) => () => ({ done, partial: () => -1 });
      const failing = get(collection(Promise.reject(new Error("bug"))));
      const joined = get(collection(Promise.resolve(2)));
      await expect(failing).rejects.toThrow("bug");
      await expect(joined).rejects.toThrow("bug");
      // A macrotask later, an unhandled rejection would have been reported.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      await expect(get(collection(Promise.resolve(3)))).resolves.toBe(3);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
