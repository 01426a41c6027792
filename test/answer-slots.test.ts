// --web.max-requests counts answers being made, never scrapes waiting for the venue: past it a scrape waits for a
// slot within its deadline, then is answered 503 and counted, while the answer it waited for still serves the others.

import { Gauge } from "@prometheus-io/client";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { Exporter, NoAnswerSlot } from "../src/scrape-answers.js";
import { createApp } from "../src/http/app.js";
import type { RunningServer } from "../src/http/server.js";
import { listen } from "./helpers/listen.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { Deadline } from "../src/util/deadline.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

let venue: TinyVenue | undefined;
let exporter: Exporter | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close(100);
  await exporter?.close();
  await venue?.close();
  server = exporter = venue = undefined;
});

describe("answer slots", () => {
  it("answers 503 with Retry-After to a scrape whose deadline passes while the one slot makes another answer", async () => {
    venue = await startTinyVenue({});
    const self = new SelfMetrics({ defaultMetrics: false });
    // The exporter's own metrics take as long as the test says: the one /metrics answer being made holds its slot.
    const gate = Promise.withResolvers<void>();
    new Gauge({
      name: "test_slow_collect",
      help: "Collected when the test lets it.",
      registers: [self.registry],
      async collect() {
        await gate.promise;
        this.set(1);
      },
    });
    const env = { TRADING_BASE_URL: venue.url, TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "USDC", TRADING_ACCOUNT: "acct" };
    exporter = new Exporter(configFromEnv({ ...env, TRADING_MAX_IN_FLIGHT_SCRAPES: "1" }), createLogger("silent"), self);
    const app = createApp({
      exporter,
      logger: createLogger("silent"),
      timeouts: { defaultTimeoutSeconds: 10, timeoutOffsetSeconds: 0.5, maxTimeoutSeconds: 60 },
    });
    server = await listen(app, "127.0.0.1", 0);
    const url = new URL("/metrics", server.url);
    const holder = fetch(url);
    await expect.poll(() => venue?.arrivals.length ?? 0).toBe(4);
    // The probe needs an answer of its own while the slot is held, and has 0.3 s (0.8 less the offset).
    const refused = await fetch(new URL("/probe?target=acct", server.url), { headers: { "x-prometheus-scrape-timeout-seconds": "0.8" } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.text()).toBe("too many answers being made at once (--web.max-requests)\n");
    gate.resolve();
    expect((await holder).status).toBe(200);
    expect(valueOf(parseExposition(await self.registry.metrics()), "trading_exporter_scrapes_rejected_total")).toBe(1);
    // The answer the refused probe waited for was made all the same, and serves the next probe at once.
    const next = await exporter.metrics(new Deadline(10), { accounts: ["acct"], marketFamilies: false });
    expect(valueOf(parseExposition(next.text()), "trading_up", { account: "acct" })).toBe(1);
    expect(venue.arrivals.length).toBe(4);
  });

  it("rejects with NoAnswerSlot from the exporter itself, so every route maps it alike", async () => {
    venue = await startTinyVenue({});
    const self = new SelfMetrics({ defaultMetrics: false });
    const gate = Promise.withResolvers<void>();
    new Gauge({ name: "test_slow_collect", help: "Collected when the test lets it.", registers: [self.registry], collect: () => gate.promise });
    const env = { TRADING_BASE_URL: venue.url, TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "USDC", TRADING_ACCOUNT: "acct" };
    exporter = new Exporter(configFromEnv({ ...env, TRADING_MAX_IN_FLIGHT_SCRAPES: "1" }), createLogger("silent"), self);
    const holder = exporter.metrics(new Deadline(10));
    await expect.poll(() => venue?.arrivals.length ?? 0).toBe(4);
    await expect(exporter.debug(new Deadline(0.3), exporter.account("acct"))).rejects.toBeInstanceOf(NoAnswerSlot);
    gate.resolve();
    expect(valueOf(parseExposition((await holder).text()), "trading_up", { account: "acct" })).toBe(1);
  });
});
