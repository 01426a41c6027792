// The real Prometheus discovers the accounts through /sd (http_sd_configs), behind basic auth, scrapes
// each as a /probe target, and finds an account added by a reload within its refresh interval.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfigFile } from "./helpers/config-files.js";
import { basicAuth } from "../src/http/toolkit/guards.js";
import { startPrometheus, waitFor, type RunningPrometheus } from "./helpers/prometheus.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

const USER = "prom";
const PASSWORD = "sd-test-password";
const AUTHORIZATION = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
/** Prometheus's refresh of the discovery; it then hands target changes on at most every 5 s (its own batching). */
const REFRESH_SECONDS = 2;
const PROMETHEUS_BATCH_SECONDS = 5;

const dir = mkdtempSync(join(tmpdir(), "te-sd-"));
const configPath = join(dir, "config.yml");
writeFileSync(join(dir, "venue.key"), SIM_KEY);
const account = (name: string) => `  - { name: ${name}, collateral_ids: [USDC], auth: { type: api_key, key_file: venue.key } }\n`;
let accounts = ["alice", "bob"];

describe("Prometheus discovers the accounts over HTTP SD", () => {
  let stack: Stack | undefined;
  let prom: RunningPrometheus | undefined;
  const p = (): RunningPrometheus =>
    prom ??
    (() => {
      throw new Error("Prometheus did not start (see beforeAll)");
    })();

  beforeAll(async () => {
    stack = await startStack({
      source: (url) => {
        writeFileSync(configPath, `venue: { base_url: "${url}" }\nweb: { listen_address: "127.0.0.1:0" }\naccounts:\n${accounts.map(account).join("")}`);
        return loadConfigFile(configPath, {});
      },
      guards: [basicAuth({ [USER]: bcrypt.hashSync(PASSWORD, 4) })],
    });
    const address = new URL(stack.server.url).host;
    const auth = { basic_auth: { username: USER, password: PASSWORD } };
    prom = await startPrometheus(address, {
      jobs: [
        {
          job_name: "trading_probe",
          scrape_interval: "1s",
          scrape_timeout: "1s",
          ...auth,
          http_sd_configs: [{ url: `http://${address}/sd`, refresh_interval: `${REFRESH_SECONDS}s`, ...auth }],
        },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await prom?.stop().catch((err: unknown) => console.error("stopping Prometheus:", err));
    await stack?.close().catch((err: unknown) => console.error("closing the stack:", err));
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const upByInstance = async (): Promise<Record<string, string>> => {
    const samples = await p().series('up{job="trading_probe"}');
    return Object.fromEntries(samples.map((s) => [s.metric.instance ?? "", s.value[1]]));
  };

  it("scrapes every configured account as its own /probe target, up, with instance = the account, and the market list as one more", async () => {
    const up = await waitFor(
      "both accounts and the market list up",
      async () => {
        const now = await upByInstance();
        return now.alice === "1" && now.bob === "1" && now["venue/markets"] === "1" ? now : undefined;
      },
      60_000,
      () => p().logTail(),
    );
    expect(up).toEqual({ alice: "1", bob: "1", "venue/markets": "1" });
    const targets = (await p().targets()).filter((t) => t.scrapePool === "trading_probe");
    expect(targets.map((t) => new URL(t.scrapeUrl).search).sort()).toEqual(["?target=alice", "?target=bob", "?target=venue%2Fmarkets"]);
    // The market series are stored once, under the market target's instance, not under each account's.
    const markets = await p().series('count by (instance) (trading_market_info{job="trading_probe"})');
    expect(markets.map((s) => s.metric.instance)).toEqual(["venue/markets"]);
    expect(targets.every((t) => new URL(t.scrapeUrl).pathname === "/probe")).toBe(true);
    // The exporter's account label on each series is the target's, not renamed to exported_account.
    const margin = await p().series('trading_up{job="trading_probe"}');
    expect(margin.map((s) => `${s.metric.instance}=${s.metric.account}`).sort()).toEqual(["alice=alice", "bob=bob"]);
  }, 90_000);

  it("finds an account added by a reload within the refresh interval (plus Prometheus's batching)", async () => {
    accounts = ["alice", "bob", "carol"];
    const reload = await fetch(new URL("/-/reload", stack!.server.url), { method: "POST", headers: { authorization: AUTHORIZATION } });
    expect(reload.status).toBe(200);
    const reloadedAt = Date.now();
    await waitFor(
      "carol discovered",
      async () => ((await p().targets()).some((t) => t.labels.instance === "carol") ? true : undefined),
      30_000,
      () => p().logTail(),
    );
    const discoveredMs = Date.now() - reloadedAt;
    expect(discoveredMs).toBeLessThan((REFRESH_SECONDS + PROMETHEUS_BATCH_SECONDS + 3) * 1000);
    await waitFor(
      "carol up",
      async () => ((await upByInstance()).carol === "1" ? true : undefined),
      30_000,
      () => p().logTail(),
    );
    console.log(`account added by reload: discovered by Prometheus ${discoveredMs} ms after the reload (refresh ${REFRESH_SECONDS} s)`);
  }, 90_000);

  it("answers /sd only with the web config's credentials", async () => {
    expect((await stack!.get("/sd")).status).toBe(401);
    const res = await stack!.get("/sd", { authorization: AUTHORIZATION });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const groups = (await res.json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
    expect(groups.map((g) => g.labels.__param_target)).toEqual(["alice", "bob", "carol", "venue/markets"]);
    expect(groups.every((g) => g.targets[0] === new URL(stack!.server.url).host)).toBe(true);
  });
});
