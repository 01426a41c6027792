// Several accounts from a config file: one failing never hides another, /probe serves one account
// by name only, auth schemes reach the venue, and reload rotates keys without a restart.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfigFile } from "./helpers/config-files.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { startExporterChild } from "./helpers/child.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const apiKey = (key: string) => ({ type: "api_key", key });
const accounts = (url: string) => ({
  venue: { base_url: url, markets_cache_seconds: 0 },
  accounts: [
    { name: "alpha", collateral_ids: ["USDC", "USDT"], auth: apiKey(SIM_KEY) },
    { name: "beta", collateral_ids: ["USDC"], auth: apiKey(SIM_KEY), headers: { "X-Desk": "beta" } },
    { name: "broken", collateral_ids: ["USDC"], auth: apiKey("not-the-key") },
  ],
});

describe("/metrics with several accounts", () => {
  it("covers every account, keeps the healthy ones whole when one fails, reads markets once", async () => {
    stack = await startStack({ file: accounts });
    stack.venue.resetStats();
    const samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_up", { account: "alpha" })).toBe(1);
    expect(valueOf(samples, "trading_up", { account: "beta" })).toBe(1);
    expect(valueOf(samples, "trading_up", { account: "broken" })).toBe(0);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "account_info", account: "broken" })).toBe(0);
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "account_info", reason: "auth" })).toBe(1);
    expect(
      samples
        .filter((s) => s.name === "trading_account_total_margin")
        .map((s) => `${s.labels.account}/${s.labels.collateral_id}`)
        .sort(),
    ).toEqual(["alpha/USDC", "alpha/USDT", "beta/USDC"]);
    expect(stack.venue.stats().requests.markets).toBe(1);
    expect(stack.venue.stats().requests.account_info).toBe(4);
  });
});

describe("/probe", () => {
  it("serves the one account named by target, without the venue's market list (a target of its own)", async () => {
    stack = await startStack({ file: accounts });
    const res = await stack.get("/probe?target=beta");
    expect(res.status).toBe(200);
    const samples = parseExposition(await res.text());
    expect([...new Set(samples.filter((s) => s.name === "trading_up").map((s) => s.labels.account))]).toEqual(["beta"]);
    expect(samples.some((s) => s.labels.account === "alpha")).toBe(false);
    expect(samples.some((s) => s.name.startsWith("trading_market_"))).toBe(false);
    const markets = parseExposition(await (await stack.get("/probe?target=venue%2Fmarkets")).text());
    expect(markets.some((s) => s.name === "trading_market_info")).toBe(true);
    expect(markets.some((s) => s.labels.account !== undefined)).toBe(false);
  });

  it.each([
    ["", "target: required (a configured account name, or venue/markets)"],
    ["?target=", "target: required (a configured account name, or venue/markets)"],
    ["?target=gamma", "target: not a configured account name"],
    ["?target=http%3A%2F%2F127.0.0.1%3A1%2Fsteal", "target: not a configured account name"],
    ["?target=..%2F..%2Fetc%2Fpasswd", "target: not a configured account name"],
    ["?target=alpha%0D%0AX-Injected%3A%201", "target: not a configured account name"],
    ["?target=alpha&target=beta", "target: given more than once (a probe is of one target)"],
    [`?target=${"a".repeat(5000)}`, "target: not a configured account name"],
  ])("answers 400 to %s without calling the venue or echoing it", async (query, message) => {
    stack = await startStack({ file: accounts });
    stack.venue.resetStats();
    const res = await stack.get(`/probe${query}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe(`${message}\n`);
    expect(res.headers.get("x-injected")).toBeNull();
    expect(Object.values(stack.venue.stats().requests).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it("debug=true reports requests, statuses and problems with credentials as <secret>", async () => {
    stack = await startStack({ file: accounts });
    stack.venue.setFaults([{ endpoint: "orders_active", kind: "missing_fields" }]);
    const res = await stack.get("/probe?target=beta&debug=true");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("Probe of account beta");
    expect(text).toContain("auth: api_key in header X-Api-Key: <secret>");
    expect(text).toContain("extra headers: X-Desk: <secret>");
    expect(text).toMatch(/account_info\s+GET \/v1\/private\/account-info\?collateralId=USDC -> 200 in [\d.]+ ms/);
    expect(text).toMatch(/orders_history\s+GET \/v1\/private\/orders\/history\?offset=0&limit=100 -> 200/);
    expect(text).toContain("orders_active marketId x");
    expect(text).toContain('trading_up{account="beta"} 1');
    expect(text).not.toContain(SIM_KEY);
  });

  it("debug=true on the market target reports the public list's request and its series, no account and no credential", async () => {
    stack = await startStack({ file: accounts });
    const res = await stack.get("/probe?target=venue%2Fmarkets&debug=true");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("Probe of venue/markets: the venue's public market list");
    expect(text).toMatch(/markets\s+GET \/v1\/public\/markets -> 200 in [\d.]+ ms/);
    expect(text).not.toMatch(/GET \/v1\/private\//);
    expect(text).toContain("trading_market_info{");
    expect(text).not.toContain("trading_up{");
    expect(text).not.toContain(SIM_KEY);
  });
});

describe("authentication schemes", () => {
  it("sends a bearer token in Authorization", async () => {
    stack = await startStack({
      venue: { apiKeyHeader: "authorization", apiKey: "Bearer tok-123" },
      file: (url) => ({ venue: { base_url: url }, accounts: [{ name: "b", collateral_ids: ["USDC"], auth: { type: "bearer", token: "tok-123" } }] }),
    });
    expect(valueOf(parseExposition(await stack.scrape()), "trading_up", { account: "b" })).toBe(1);
  });

  it("sends HTTP basic credentials", async () => {
    stack = await startStack({
      venue: { apiKeyHeader: "authorization", apiKey: `Basic ${Buffer.from("u1:pw-456").toString("base64")}` },
      file: (url) => ({
        venue: { base_url: url },
        accounts: [{ name: "c", collateral_ids: ["USDC"], auth: { type: "basic", username: "u1", password_env: "PW" } }],
      }),
      env: { PW: "pw-456" },
    });
    expect(valueOf(parseExposition(await stack.scrape()), "trading_up", { account: "c" })).toBe(1);
  });

  it("sends no credential with type none (and the venue refuses the private paths)", async () => {
    stack = await startStack({
      file: (url) => ({ venue: { base_url: url }, accounts: [{ name: "n", collateral_ids: ["USDC"], auth: { type: "none" } }] }),
    });
    const samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_exporter_upstream_errors_total", { endpoint: "orders_active", reason: "auth" })).toBe(1);
    expect(valueOf(samples, "trading_scrape_success", { endpoint: "markets" })).toBe(1);
  });
});

describe("reload", () => {
  const yaml = (url: string) =>
    `venue: { base_url: "${url}" }\naccounts:\n  - name: r\n    collateral_ids: [USDC]\n    auth: { type: api_key, key_file: venue.key }\n`;

  function files(key: string) {
    const dir = mkdtempSync(join(tmpdir(), "te-reload-"));
    const files = {
      config: join(dir, "config.yml"),
      key: join(dir, "venue.key"),
      /** When set, the next load reads this text instead of a good config. */
      broken: undefined as string | undefined,
    };
    writeFileSync(files.key, key);
    return files;
  }

  it("POST /-/reload rotates the key; a bad file is rejected and the old config keeps serving", async () => {
    const f = files("old-wrong-key");
    stack = await startStack({
      source: (url) => {
        writeFileSync(f.config, f.broken ?? yaml(url));
        return loadConfigFile(f.config, { TRADING_LISTEN_ADDRESS: "127.0.0.1:0" });
      },
    });
    expect(valueOf(parseExposition(await stack.scrape()), "trading_up", { account: "r" })).toBe(0);
    writeFileSync(f.key, SIM_KEY);
    expect((await stack.reload()).status).toBe(200);
    let samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_up", { account: "r" })).toBe(1);
    expect(valueOf(samples, "trading_exporter_config_last_reload_successful")).toBe(1);
    const goodAt = valueOf(samples, "trading_exporter_config_last_reload_success_timestamp_seconds");

    f.broken = "accounts: [\n";
    const bad = await stack.reload();
    expect(bad.status).toBe(500);
    expect(await bad.text()).toBe(
      "reload failed: config file: not valid YAML at line 2, column 1: a list opened with [ is not closed with ] (or not indented under its key)\n",
    );
    samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_up", { account: "r" })).toBe(1);
    expect(valueOf(samples, "trading_exporter_config_last_reload_successful")).toBe(0);
    expect(valueOf(samples, "trading_exporter_config_last_reload_success_timestamp_seconds")).toBe(goodAt);
    expect(stack.logs.some((l) => l.includes("configuration reload failed"))).toBe(true);
  });

  it("SIGHUP re-reads the key file of a running exporter", async () => {
    stack = await startStack();
    const f = files("stale-key");
    writeFileSync(f.config, yaml(stack.venue.url));
    const child = await startExporterChild({ TRADING_CONFIG_FILE: f.config, TRADING_LISTEN_ADDRESS: "127.0.0.1:0" });
    try {
      const up = async () => valueOf(parseExposition(await (await fetch(new URL("metrics", child.url))).text()), "trading_up", { account: "r" });
      expect(await up()).toBe(0);
      writeFileSync(f.key, SIM_KEY);
      child.child.kill("SIGHUP");
      await expect.poll(up, { timeout: 5000, interval: 50 }).toBe(1);
      // The log line reaches us through a pipe and may arrive after the scrape that saw the new key.
      await expect.poll(() => child.lines.some((l) => l.includes("configuration reloaded")), { timeout: 5000, interval: 50 }).toBe(true);
    } finally {
      child.child.kill("SIGTERM");
      await child.exited;
    }
  });
});
