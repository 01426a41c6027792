// Configuration from the environment: defaults, and one exact line for each bad value.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { ConfigError } from "../src/config/errors.js";

const BASE = { TRADING_BASE_URL: "http://127.0.0.1:8080", TRADING_API_KEY: "k-123", TRADING_COLLATERAL_IDS: "USDC,USDT" };

describe("configFromEnv", () => {
  it("fills in the documented defaults", () => {
    const config = configFromEnv(BASE);
    expect(config.listenAddresses).toEqual([{ host: "0.0.0.0", port: 9842 }]);
    expect(config.accounts).toHaveLength(1);
    const [account] = config.accounts;
    expect(account?.name).toBe("default");
    expect(account?.collateralIds).toEqual(["USDC", "USDT"]);
    expect(account?.auth).toMatchObject({ type: "api_key", header: "X-Api-Key" });
    expect(config.venue.baseUrl.href).toBe("http://127.0.0.1:8080/");
    expect(config.venue).toMatchObject({ historyMaxOrders: 1000, historyPageSize: 100, activeOrdersLimit: 1000 });
  });

  it("reads the key from a file and never shows it when printed", () => {
    const dir = mkdtempSync(join(tmpdir(), "te-"));
    const file = join(dir, "key");
    writeFileSync(file, "file-key-XYZ\n");
    const config = configFromEnv({ ...BASE, TRADING_API_KEY: undefined, TRADING_API_KEY_FILE: file });
    const auth = config.accounts[0]?.auth;
    expect(auth?.type === "api_key" && auth.key.reveal()).toBe("file-key-XYZ");
    expect(JSON.stringify(config)).not.toContain("file-key-XYZ");
    expect(String(auth && "key" in auth ? auth.key : "")).toBe("<secret>");
  });

  it("refuses a secret file over 1 MiB in one line, as it refuses a config file, without reading it whole", () => {
    const file = join(mkdtempSync(join(tmpdir(), "te-")), "key");
    writeFileSync(file, "k".repeat(1024 * 1024 + 1));
    expect(() => configFromEnv({ ...BASE, TRADING_API_KEY: undefined, TRADING_API_KEY_FILE: file })).toThrowError(
      new ConfigError(`TRADING_API_KEY_FILE: ${JSON.stringify(file)} is larger than 1 MiB, the most read; refused`),
    );
  });

  it.each([
    [{ TRADING_BASE_URL: undefined }, "TRADING_BASE_URL: required"],
    [{ TRADING_BASE_URL: "not a url" }, "TRADING_BASE_URL: not a valid URL"],
    [{ TRADING_BASE_URL: "ftp://x" }, "TRADING_BASE_URL: must be an http:// or https:// URL"],
    [{ TRADING_BASE_URL: "https://user:pw@venue" }, "TRADING_BASE_URL: must not carry credentials; configure the account's auth instead"],
    [{ TRADING_COLLATERAL_IDS: undefined }, "TRADING_COLLATERAL_IDS: required"],
    [{ TRADING_COLLATERAL_IDS: "USDC,,BTC" }, "TRADING_COLLATERAL_IDS: expected a comma-separated list of non-empty ids"],
    [{ TRADING_COLLATERAL_IDS: "USDC,USDC" }, "TRADING_COLLATERAL_IDS: lists an id twice"],
    [{ TRADING_COLLATERAL_IDS: `USDC,${"C".repeat(129)}` }, "TRADING_COLLATERAL_IDS: an id is longer than 128 characters"],
    [{ TRADING_API_KEY: undefined }, "TRADING_API_KEY or TRADING_API_KEY_FILE: required"],
    [{ TRADING_API_KEY_FILE: "/x" }, "TRADING_API_KEY and TRADING_API_KEY_FILE: give one, not both"],
    [{ TRADING_API_KEY: undefined, TRADING_API_KEY_FILE: "/nonexistent/key" }, 'TRADING_API_KEY_FILE: cannot read "/nonexistent/key": no such file (ENOENT)'],
    [{ TRADING_API_KEY_HEADER: "Bad Header" }, "TRADING_API_KEY_HEADER: not a valid HTTP header name"],
    [{ TRADING_LISTEN_ADDRESS: "9842" }, "TRADING_LISTEN_ADDRESS: expected host:port (e.g. 0.0.0.0:9842 or [::1]:9842)"],
    [{ TRADING_LISTEN_ADDRESS: "127.0.0.1:70000" }, "TRADING_LISTEN_ADDRESS: port 70000 is out of range: a port is 0 to 65535"],
    [{ TRADING_HISTORY_MAX_ORDERS: "-1" }, "TRADING_HISTORY_MAX_ORDERS: expected a whole number from 1 to 1000000"],
    [{ TRADING_HISTORY_PAGE_SIZE: "ten" }, "TRADING_HISTORY_PAGE_SIZE: expected a whole number from 1 to 100000"],
    [{ TRADING_MAX_ORDER_OUTCOME_SERIES: "1" }, "TRADING_MAX_ORDER_OUTCOME_SERIES: expected a whole number from 2 to 1000000"],
  ])("rejects %j with one line", (override, message) => {
    expect(() => configFromEnv({ ...BASE, ...override })).toThrowError(new ConfigError(message));
  });

  it("never echoes a secret value in its errors", () => {
    expect(() => configFromEnv({ ...BASE, TRADING_BASE_URL: "https://user:hunter2@venue" })).toThrowError(
      expect.objectContaining({ message: expect.not.stringContaining("hunter2") }),
    );
  });

  it("takes every auth scheme of the config file: bearer, basic and none", () => {
    const base = { TRADING_BASE_URL: BASE.TRADING_BASE_URL, TRADING_COLLATERAL_IDS: "USDC" };
    const bearer = configFromEnv({ ...base, TRADING_AUTH_TYPE: "bearer", TRADING_BEARER_TOKEN: "tok-1" }).accounts[0]!.auth;
    expect(bearer.type === "bearer" && bearer.token.reveal()).toBe("tok-1");
    const basic = configFromEnv({ ...base, TRADING_AUTH_TYPE: "basic", TRADING_BASIC_USERNAME: "ops", TRADING_BASIC_PASSWORD: "pw-1" }).accounts[0]!.auth;
    expect(basic.type === "basic" && [basic.username, basic.password.reveal()]).toEqual(["ops", "pw-1"]);
    expect(configFromEnv({ ...base, TRADING_AUTH_TYPE: "none" }).accounts[0]!.auth).toEqual({ type: "none" });
  });

  it.each([
    [{ TRADING_AUTH_TYPE: "oauth" }, ["TRADING_AUTH_TYPE: expected one of api_key, bearer, basic, none"]],
    [{ TRADING_AUTH_TYPE: "bearer" }, ["TRADING_BEARER_TOKEN or TRADING_BEARER_TOKEN_FILE: required"]],
    [
      { TRADING_AUTH_TYPE: "basic" },
      ["TRADING_BASIC_USERNAME: required with TRADING_AUTH_TYPE=basic", "TRADING_BASIC_PASSWORD or TRADING_BASIC_PASSWORD_FILE: required"],
    ],
  ])("refuses an incomplete credential %j, naming every missing variable", (override, problems) => {
    expect(() => configFromEnv({ ...BASE, TRADING_API_KEY: undefined, ...override })).toThrowError(new ConfigError(problems));
  });

  it("parses IPv6 and wildcard listen addresses", () => {
    expect(configFromEnv({ ...BASE, TRADING_LISTEN_ADDRESS: "[::1]:9000" }).listenAddresses).toEqual([{ host: "::1", port: 9000 }]);
    expect(configFromEnv({ ...BASE, TRADING_LISTEN_ADDRESS: ":9000" }).listenAddresses).toEqual([{ host: "0.0.0.0", port: 9000 }]);
  });
});
