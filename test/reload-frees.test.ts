// A reload frees what it removes: the store entries of the accounts it drops (collections, answers, health, order
// memory) and, once their last collection has ended, their secrets in the redactor.

import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, onTestFinished } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { Secret } from "../src/config/secret.js";
import type { Config } from "../src/config/types.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { startTinyVenue } from "./helpers/tiny-venue.js";
import { redactor } from "./helpers/redactor.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const ACCOUNTS = 200;
const RELOADS = 100;
const WARM = 10;
/** A key of its own, no 12-character run shared with another's. */
const keyOf = (generation: number, i: number) => createHash("sha256").update(`${generation}/${i}`).digest("hex").slice(0, 32);

/** `ACCOUNTS` accounts named and keyed for `generation`: a reload to the next replaces every one. */
function generationConfig(base: Config, generation: number): Config {
  const [template] = base.accounts;
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
    ...template!,
    name: `g${generation}-a${i}`,
    auth: { type: "api_key" as const, header: "X-Api-Key", key: new Secret(keyOf(generation, i), "key") },
  }));
  return { ...base, accounts };
}

function heapMB(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

describe("100 reloads that each replace every account by new names and keys", () => {
  it("leave the heap where one configuration of that size leaves it, and forget the removed secrets", async () => {
    const venue = await startTinyVenue({});
    const base = configFromEnv({
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_ACCOUNT: "acct",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    });
    let generation = 0;
    const source = () => generationConfig(base, generation);
    const service = await startService(source(), createLogger("silent"), { redactor, self: new SelfMetrics({ defaultMetrics: false }), source });
    onTestFinished(async () => {
      await service.close(100);
      await venue.close();
    });
    const metrics = new URL("/metrics", service.server.url);
    const scrape = async () => {
      const res = await fetch(metrics);
      expect(res.status).toBe(200);
      return res.text();
    };
    // Ten generations in, so the heap measured holds one configuration as every later one does, its code compiled.
    const replace = async () => {
      generation++;
      await service.reload!();
      const text = await scrape();
      // The test venue's own log of requests is not the exporter's memory.
      venue.reset();
      return text;
    };
    await scrape();
    for (let i = 0; i < WARM; i++) expect(await replace()).toContain(`account="g${generation}-a199"`);
    const one = heapMB();
    for (let i = 0; i < RELOADS; i++) await replace();
    const text = await scrape();
    expect(text).toContain(`account="g${generation}-a0"`);
    expect(text).not.toContain(`account="g${generation - 1}-a0"`);
    const after = heapMB();
    // One generation kept is about 3.5 MB (entries, answers, redaction indexes): 100 would be 350 MB.
    expect(after).toBeLessThan(one + 10);
    // The last collection of each replaced configuration has ended (the scrapes waited for them): its keys are forgotten.
    expect(redactor.redact(`echo ${keyOf(1, 0)}`)).toBe(`echo ${keyOf(1, 0)}`);
    expect(redactor.redact(`echo ${keyOf(generation, 7)}`)).toBe("echo <secret>");
  }, 120_000);
});
