// Every configuration problem at once, one per line, in file order; an unknown key named as unknown,
// with the key probably meant, never hidden behind a "required" for that key. The same for the web
// config and the environment, whose unknown TRADING_* names are warnings.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { addZodIssues } from "../src/config/yaml.js";
import { ConfigError, MAX_PROBLEMS, Problems } from "../src/config/errors.js";
import { loadConfigFile } from "./helpers/config-files.js";
import { ConfigFile } from "../src/config/file.js";
import { buildConfig } from "../src/config/load.js";
import { parseWebConfig } from "../src/http/toolkit/web-config.js";
import { runExporter } from "./helpers/child.js";

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "te-problems-"));
  const path = join(dir, "config.yml");
  writeFileSync(path, text);
  return path;
}

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("no ConfigError was thrown");
}

describe("config file problems", () => {
  it("names a typo'd key as unknown with the key meant, not as a missing one", () => {
    const text = "venue: { base_url: http://x }\naccounts:\n  - name: a\n    colateral_ids: [USDC]\n    auth: { type: none }\n";
    expect(problemsOf(() => loadConfigFile(file(text), {}))).toEqual(["accounts[0].colateral_ids: unknown key (did you mean collateral_ids?)"]);
  });

  it("reports a bad header name and a missing key of one account together", () => {
    const text = "venue: { base_url: http://x }\naccounts:\n  - name: a\n    collateral_ids: [USDC]\n    auth: { type: api_key, header_name: 'X Key' }\n";
    expect(problemsOf(() => loadConfigFile(file(text), {}))).toEqual([
      "accounts[0].auth.header_name: not a valid HTTP header name",
      "accounts[0].auth.key: required (give one of accounts[0].auth.key, accounts[0].auth.key_file or accounts[0].auth.key_env)",
    ]);
  });

  it("lists every problem in file order, one per line", () => {
    const text = [
      "base_url: http://x", // a venue key at the top
      "venue:",
      "  history_page_size: 0",
      "  markets_cache_secs: 5",
      "accounts:",
      "  - name: 'a b'",
      "    collateral_ids: [USDC]",
      "    auth: { type: api_key, key: k, header_nme: X }",
      "  - name: ok",
      "    collateral_ids: [USDC, USDC]",
      "    auth: { type: bearer }",
      "scrape: { max_in_flight: 100001, max_sries: 3 }",
      "log: { level: loud, format: logfmt }",
      "",
    ].join("\n");
    expect(problemsOf(() => loadConfigFile(file(text), {}))).toEqual([
      "base_url: unknown key (did you mean venue.base_url?)",
      "venue.base_url: required",
      "venue.history_page_size: expected a whole number from 1 to 100000",
      "venue.markets_cache_secs: unknown key (did you mean markets_cache_seconds?)",
      "accounts[0].name: must be 1-64 letters, digits or _ . : -",
      "accounts[0].auth.header_nme: unknown key (did you mean header_name?)",
      "accounts[1].collateral_ids: lists an id twice",
      "accounts[1].auth.token: required (give one of accounts[1].auth.token, accounts[1].auth.token_file or accounts[1].auth.token_env)",
      "scrape.max_in_flight: expected a whole number from 0 (no limit) to 100000",
      "scrape.max_sries: unknown key (did you mean max_series?)",
      "log.level: expected one of debug, info, warn, error",
    ]);
  });

  it("names a bad secret, header or user name with every other problem, even beside an unknown account key", () => {
    const text = [
      "venue: { base_url: ftp://x }",
      "accounts:",
      "  - name: a",
      "    collateral_ids: [USDC]",
      '    auth: { type: api_key, key: "k1\\nk2" }',
      '    headers: { X-Desk: "a\\r\\nb", "Bad Header": x }',
      "    extra: 1",
      "  - name: b",
      "    collateral_ids: [USDC]",
      '    auth: { type: basic, username: "u\\u0001", password: "p\\u0000w" }',
      "",
    ].join("\n");
    const bad = "so it is not a valid HTTP header value (value not shown)";
    expect(problemsOf(() => loadConfigFile(file(text), {}))).toEqual([
      "venue.base_url: must be an http:// or https:// URL",
      `accounts[0].auth.key: contains a line break, ${bad}`,
      `accounts[0].headers.X-Desk: contains a line break, ${bad}`,
      "accounts[0].headers.Bad Header: not a valid HTTP header name",
      "accounts[0].extra: unknown key",
      `accounts[1].auth.username: contains a control character, ${bad}`,
      `accounts[1].auth.password: contains a NUL byte, ${bad}`,
    ]);
  });

  it("refuses the headers the HTTP client sets itself (every private call would fail)", () => {
    const text = [
      "venue: { base_url: http://x }",
      "accounts:",
      "  - name: a",
      "    collateral_ids: [USDC]",
      "    auth: { type: api_key, key: k, header_name: Host }",
      "    headers: { Transfer-Encoding: chunked, content-length: '5', X-Desk: ok }",
      "",
    ].join("\n");
    const refused = "set by the HTTP client for each request, so it cannot be configured";
    expect(problemsOf(() => loadConfigFile(file(text), {}))).toEqual([
      `accounts[0].auth.header_name: ${refused}`,
      `accounts[0].headers.Transfer-Encoding: ${refused}`,
      `accounts[0].headers.content-length: ${refused}`,
    ]);
    expect(
      problemsOf(() =>
        buildConfig(
          { env: { TRADING_BASE_URL: "http://x", TRADING_COLLATERAL_IDS: "X", TRADING_API_KEY: "k", TRADING_API_KEY_HEADER: "Connection" } },
          undefined,
        ),
      ),
    ).toEqual([`TRADING_API_KEY_HEADER: ${refused}`]);
  });

  it(`stops listing after ${MAX_PROBLEMS} problems and says how many more there were`, () => {
    const keys = Array.from({ length: 30 }, (_, i) => `  extra_${String(i).padStart(2, "0")}: 1`).join("\n");
    const text = `venue:\n  base_url: http://x\n${keys}\naccounts:\n  - { name: a, collateral_ids: [X], auth: { type: none } }\n`;
    const problems = problemsOf(() => loadConfigFile(file(text), {}));
    expect(problems).toHaveLength(MAX_PROBLEMS + 1);
    expect(problems[0]).toBe("venue.extra_00: unknown key");
    expect(problems.at(-1)).toBe("... and 10 more problems");
  });
});

describe("zod's own words", () => {
  it("never reach a problem line: a check without a text of ours says what is wrong in ours", () => {
    const schema = z.strictObject({ sizes: z.array(z.number().multipleOf(5)), tags: z.record(z.string().regex(/^[a-z]+$/), z.string()) });
    const data = { sizes: [7], tags: { Bad: "x" } };
    const parsed = schema.safeParse(data);
    const problems = new Problems();
    addZodIssues(parsed.error!, problems, { schema, data, at: [], label: "" });
    const lines = problemsOf(() => problems.throwIfAny());
    expect(lines).toEqual(["sizes[0]: must be a multiple of 5", "tags.Bad: not accepted here"]);
  });
});

describe("web config problems", () => {
  it("lists every problem in file order, unknown keys with the key meant, no hidden required", () => {
    const text = [
      "tls_server_config:",
      "  cert_fle: server.crt",
      "  key_file: server.key",
      "  min_version: SSL30",
      "basic_auth_users:",
      "  alice: not-a-hash",
      "http_server_confg: {}",
      "",
    ].join("\n");
    expect(problemsOf(() => parseWebConfig(text, "/tmp/web.yml"))).toEqual([
      "web config: tls_server_config.cert_fle: unknown key (did you mean cert_file?)",
      'web config: tls_server_config.min_version: expected one of "TLS10", "TLS11", "TLS12", "TLS13"',
      "web config: basic_auth_users.alice: not a bcrypt hash ($2a$, $2b$ or $2y$ with cost 04-31)",
      "web config: http_server_confg: unknown key (did you mean http_server_config?)",
    ]);
  });
});

describe("environment problems", () => {
  const BASE = { TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "X" };

  it("lists every bad variable at once, in the table's order", () => {
    const env = { TRADING_COLLATERAL_IDS: "X,,Y", TRADING_ACCOUNT: "no spaces please", TRADING_MAX_SERIES: "many" };
    expect(problemsOf(() => buildConfig({ env }, undefined))).toEqual([
      "TRADING_BASE_URL: required",
      "TRADING_ACCOUNT: must be 1-64 letters, digits or _ . : -",
      "TRADING_COLLATERAL_IDS: expected a comma-separated list of non-empty ids",
      "TRADING_API_KEY or TRADING_API_KEY_FILE: required",
      "TRADING_MAX_SERIES: expected a whole number from 1 to 100000000",
    ]);
  });

  it("lists the flags' problems first, then the variables', then the file's in file order", () => {
    const data = { scrape: { max_series: 0 }, venue: { base_url: "ftp://x" }, accounts: [{ name: "a", collateral_ids: ["X"], auth: { type: "none" } }] };
    const env = { TRADING_MAX_IN_FLIGHT_SCRAPES: "-1" };
    expect(problemsOf(() => buildConfig({ env, flags: { "log.level": "loud" } }, new ConfigFile(data, "/")))).toEqual([
      "--log.level: expected one of debug, info, warn, error",
      "TRADING_MAX_IN_FLIGHT_SCRAPES: expected a whole number from 0 (no limit) to 100000",
      "scrape.max_series: expected a whole number from 1 to 100000000",
      "venue.base_url: must be an http:// or https:// URL",
    ]);
  });

  it("names a misspelt variable in place of the required one it was meant to be, and a bad user name once", () => {
    const env = {
      TRADING_BASE_URL: "http://x",
      TRADING_COLATERAL_IDS: "X",
      TRADING_AUTH_TYPE: "basic",
      TRADING_BASIC_USERNAME: "u\nx",
      TRADING_BASIC_PASSWORD_FIEL: "/p",
      TRADING_WHATEVER: "x",
    };
    expect(problemsOf(() => buildConfig({ env }, undefined))).toEqual([
      "TRADING_COLATERAL_IDS: unknown variable, ignored (did you mean TRADING_COLLATERAL_IDS?)",
      "TRADING_BASIC_USERNAME: contains a line break, so it is not a valid HTTP header value (value not shown)",
      "TRADING_BASIC_PASSWORD_FIEL: unknown variable, ignored (did you mean TRADING_BASIC_PASSWORD_FILE?)",
    ]);
  });

  it("warns of a TRADING_* name nobody reads, with the name meant, and still loads", () => {
    const { config, warnings } = buildConfig({ env: { ...BASE, TRADING_LISTEN_ADRESS: "127.0.0.1:1", TRADING_WHATEVER: "x" } }, undefined);
    expect(config.listenAddresses.map((a) => a.port)).toEqual([9842]);
    expect(warnings).toEqual([
      "TRADING_LISTEN_ADRESS: unknown variable, ignored (did you mean TRADING_LISTEN_ADDRESS?)",
      "TRADING_WHATEVER: unknown variable, ignored",
    ]);
  });

  it("warns of a write timeout not above the longest scrape deadline, which would cut a scrape that takes it, and still loads", () => {
    const { config, warnings } = buildConfig({ env: { ...BASE, TRADING_WEB_WRITE_TIMEOUT_SECONDS: "30" } }, undefined);
    expect(config.web.writeTimeoutSeconds).toBe(30);
    expect(warnings).toEqual([
      "TRADING_WEB_WRITE_TIMEOUT_SECONDS: 30 s is not above scrape.max_timeout_seconds (60 s): a scrape that takes its whole deadline is cut before its answer is written",
    ]);
    expect(buildConfig({ env: { ...BASE, TRADING_WEB_WRITE_TIMEOUT_SECONDS: "61" } }, undefined).warnings).toEqual([]);
  });

  it("applies the config file's name rule to TRADING_ACCOUNT", () => {
    expect(buildConfig({ env: { ...BASE, TRADING_ACCOUNT: "desk-1.eu:a_b" } }, undefined).config.accounts[0]?.name).toBe("desk-1.eu:a_b");
    expect(() => buildConfig({ env: { ...BASE, TRADING_ACCOUNT: "x".repeat(65) } }, undefined)).toThrowError(
      new ConfigError("TRADING_ACCOUNT: must be 1-64 letters, digits or _ . : -"),
    );
  });
});

describe("--config.check", () => {
  it("prints each problem on its own line and exits 1", async () => {
    const path = file("venue: { base_url: ftp://x }\naccounts:\n  - name: a\n    colateral_ids: [X]\n    auth: { type: none }\n");
    const run = await runExporter({ TRADING_CONFIG_FILE: path, TRADING_LOG_LEVL: "debug" }, ["--config.check"]);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      "trading-exporter: configuration error: venue.base_url: must be an http:// or https:// URL",
      "trading-exporter: configuration error: accounts[0].colateral_ids: unknown key (did you mean collateral_ids?)",
    ]);
  });

  it("prints the warnings on stderr and exits 0 when the configuration is usable", async () => {
    const path = file("venue: { base_url: http://x }\naccounts:\n  - { name: a, collateral_ids: [X], auth: { type: none } }\n");
    const run = await runExporter({ TRADING_CONFIG_FILE: path, TRADING_LOG_LEVL: "debug", TRADING_API_KEY: "k" }, ["--config.check"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("configuration OK: 1 account(s): a\n");
    expect(run.stderr.split("\n").filter(Boolean)).toEqual([
      "trading-exporter: warning: TRADING_LOG_LEVL: unknown variable, ignored (did you mean TRADING_LOG_LEVEL?)",
      "trading-exporter: warning: TRADING_API_KEY: ignored with a config file (accounts come from the file)",
    ]);
  });
});

describe("sharding", () => {
  const BASE = { TRADING_BASE_URL: "http://x", TRADING_COLLATERAL_IDS: "X", TRADING_AUTH_TYPE: "none" };
  const load = (env: Record<string, string>, flags: Record<string, string> = {}) => buildConfig({ env: { ...BASE, ...env }, flags }, undefined).config;

  it("takes the shard as a number or as a StatefulSet pod name, the flag before the variable", () => {
    expect(load({}).sharding).toEqual({ shard: 0, totalShards: 1 });
    expect(load({ TRADING_SHARD: "trading-exporter-1", TRADING_TOTAL_SHARDS: "2" }).sharding).toEqual({ shard: 1, totalShards: 2 });
    expect(load({ TRADING_SHARD: "1", TRADING_TOTAL_SHARDS: "3" }, { shard: "2", "total-shards": "4" }).sharding).toEqual({ shard: 2, totalShards: 4 });
  });

  it.each([
    [{ TRADING_SHARD: "2", TRADING_TOTAL_SHARDS: "2" }, {}, "TRADING_SHARD: must be below TRADING_TOTAL_SHARDS; shards are numbered from 0"],
    [
      { TRADING_SHARD: "trading-exporter-1" },
      {},
      "TRADING_SHARD: must be below the number of shards, 1 when neither TRADING_TOTAL_SHARDS nor --total-shards is set; shards are numbered from 0",
    ],
    [{ TRADING_TOTAL_SHARDS: "2" }, { shard: "trading-exporter-2" }, "--shard: must be below TRADING_TOTAL_SHARDS; shards are numbered from 0"],
    [{ TRADING_TOTAL_SHARDS: "9" }, { shard: "3", "total-shards": "3" }, "--shard: must be below --total-shards; shards are numbered from 0"],
    [{ TRADING_TOTAL_SHARDS: "0" }, {}, "TRADING_TOTAL_SHARDS: expected a whole number from 1 to 10000"],
    [{ TRADING_SHARD: "exporter" }, {}, "TRADING_SHARD: expected a shard number from 0, or a StatefulSet pod name ending in -NUMBER"],
    [{}, { shard: "-1" }, "--shard: expected a shard number from 0, or a StatefulSet pod name ending in -NUMBER"],
  ])("refuses %j %j in one line naming the setting", (env, flags, line) => {
    expect(problemsOf(() => load(env, flags))).toEqual([line]);
  });
});

describe("a config of 20,000 accounts without names", () => {
  it("is reported in under 2 s, each account's name and auth required, in file order", () => {
    // Two problems an account, 40,000 in all: one pass per problem over every problem took 4.8 s for --config.check.
    const accounts = Array.from({ length: 20_000 }, () => ({ collateral_ids: ["USDC"] }));
    const file = new ConfigFile({ venue: { base_url: "http://venue.example/" }, accounts }, "/");
    const started = performance.now();
    const problems = problemsOf(() => buildConfig({ env: {} }, file));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(problems.slice(0, 3)).toEqual(["accounts[0].name: required", "accounts[0].auth: required", "accounts[1].name: required"]);
    expect(problems.at(-1)).toBe(`... and ${40_000 - MAX_PROBLEMS} more problems`);
  });
});
