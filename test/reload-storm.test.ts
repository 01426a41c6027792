// Reloads one at a time, coalesced: a storm of POST /-/reload (or SIGHUP, which calls the same) costs the reload
// under way and one after it, every request answered with the outcome of the reload that served it.

import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import type { Config } from "../src/config/types.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { type Service, startService } from "../src/lifecycle.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

let venue: TinyVenue | undefined;
let service: Service | undefined;
afterEach(async () => {
  await service?.close(100);
  await venue?.close();
  service = venue = undefined;
});

describe("a reload storm", () => {
  it("of 50 requests while one reload is held: two reads of the configuration, every request answered with its reload's outcome", async () => {
    venue = await startTinyVenue({});
    const env = {
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_ACCOUNT: "acct",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    };
    let reads = 0;
    let held = Promise.withResolvers<void>();
    let failNext = false;
    const source = async (): Promise<Config> => {
      reads++;
      await held.promise;
      if (failNext) throw new Error("unreadable");
      return configFromEnv(env);
    };
    const self = new SelfMetrics({ defaultMetrics: false });
    service = await startService(configFromEnv(env), createLogger("silent"), { self, source });
    const url = new URL("/-/reload", service.server.url);
    const first = fetch(url, { method: "POST" });
    await expect.poll(() => reads).toBe(1);
    // Asked while the route's reload is held, as SIGHUP asks (the same call): one reload after it serves them all.
    const s = service;
    const storm = Array.from({ length: 50 }, () => s.reload!());
    expect(reads).toBe(1);
    held.resolve();
    expect((await first).status).toBe(200);
    await Promise.all(storm);
    expect(reads).toBe(2);

    // A failing reload: every request it served is answered with its failure, the next storm reads again.
    held = Promise.withResolvers<void>();
    failNext = true;
    const failing = fetch(url, { method: "POST" });
    await expect.poll(() => reads).toBe(3);
    const served = Array.from({ length: 10 }, () =>
      s.reload!().then(
        () => "ok",
        () => "failed",
      ),
    );
    held.resolve();
    expect((await failing).status).toBe(500);
    expect(await Promise.all(served)).toEqual(Array.from({ length: 10 }, () => "failed"));
    expect(reads).toBe(4);
    expect(valueOf(parseExposition(await self.registry.metrics()), "trading_exporter_config_last_reload_successful")).toBe(0);
  });
});
