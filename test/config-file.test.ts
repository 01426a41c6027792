// The YAML config file: the example loads, and every bad file stops with its one exact line.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { loadConfigFile } from "./helpers/config-files.js";
import { SETTING_LIST } from "../src/config/settings.js";
import { parseYaml, parseYamlAside } from "../src/config/yaml.js";

const EXAMPLE = new URL("../examples/trading-exporter.yml", import.meta.url).pathname;

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "te-config-"));
  const path = join(dir, "config.yml");
  writeFileSync(path, text);
  writeFileSync(join(dir, "key.txt"), "from-file-key\n");
  return path;
}

const GOOD = `
venue:
  base_url: http://127.0.0.1:8080
accounts:
  - name: a
    collateral_ids: [USDC]
    auth: { type: api_key, key_file: key.txt }
`;

describe("the example config file", () => {
  it("loads with every account and its documented defaults", () => {
    const config = loadConfigFile(EXAMPLE, { HEDGE_TOKEN: "example-hedge-token" });
    expect(config.accounts.map((a) => [a.name, a.auth.type])).toEqual([
      ["main", "api_key"],
      ["hedge", "bearer"],
      ["ops", "basic"],
      ["sandbox", "none"],
    ]);
    expect(config.venue).toMatchObject({ historyMaxOrders: 1000, historyPageSize: 100, marketsCacheSeconds: 60 });
    expect(config.scrape).toEqual({
      minCollectionIntervalSeconds: 12,
      defaultTimeoutSeconds: 10,
      timeoutOffsetSeconds: 0.5,
      maxTimeoutSeconds: 60,
      maxInFlight: 40,
      maxSeries: 200000,
      maxOrderOutcomeSeries: 1000,
    });
    const main = config.accounts[0]!;
    expect(main.auth.type === "api_key" && main.auth.key.reveal()).toBe("example-main-key");
    expect(main.headers).toEqual({ "X-Desk": "alpha" });
  });
});

describe("the example's keys", () => {
  it("include every config file key of the settings table", () => {
    const text = readFileSync(EXAMPLE, "utf8");
    const missing = SETTING_LIST.filter(([id, s]) => {
      if (!s.file) return false;
      const [section, key] = id.split(".") as [string, string];
      const after = text.slice(text.search(new RegExp(`^${section}:`, "m")));
      return !new RegExp(`^\\s+#?\\s*${key}:`, "m").test(after);
    });
    expect(missing.map(([id]) => id)).toEqual([]);
  });
});

describe("a minimal config file", () => {
  it("gets the defaults and reads the key file relative to the config", () => {
    const config = loadConfigFile(file(GOOD), {});
    expect(config.listenAddresses).toEqual([{ host: "0.0.0.0", port: 9842 }]);
    const auth = config.accounts[0]!.auth;
    expect(auth.type === "api_key" && auth.header).toBe("X-Api-Key");
    expect(auth.type === "api_key" && auth.key.reveal()).toBe("from-file-key");
  });

  it("reads collateral_ids given as one comma-separated string as the list it names, as docs/configuration.md says", () => {
    const text = `venue: { base_url: "http://127.0.0.1:8080" }\naccounts:\n  - { name: a, collateral_ids: "USDC, USDT", auth: { type: none } }\n  - { name: b, collateral_ids: USDC, auth: { type: none } }\n`;
    const config = loadConfigFile(file(text), {});
    expect(config.accounts.map((a) => a.collateralIds)).toEqual([["USDC", "USDT"], ["USDC"]]);
    expect(readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8")).toContain("`collateral_ids`, a list or one such string");
  });
});

const account = (auth: string, extra = "") => `
venue: { base_url: "http://127.0.0.1:8080" }
accounts:
  - name: a
    collateral_ids: [USDC]
    auth: ${auth}
${extra}`;

describe("bad config files", () => {
  it.each([
    ["unknown top-level key", `${GOOD}\ncolour: blue\n`, "colour: unknown key"],
    ["unknown account key", GOOD.replace("name: a", "name: a\n    nmae: b"), "accounts[0].nmae: unknown key (did you mean name?)"],
    ["no venue", "accounts: []\n", "venue.base_url: required\naccounts: expected at least one account"],
    ["no base_url", "venue: {}\naccounts: []\n", "venue.base_url: required\naccounts: expected at least one account"],
    [
      "base_url with credentials",
      account("{ type: none }").replace("http://127", "http://u:p@127"),
      "venue.base_url: must not carry credentials; configure the account's auth instead",
    ],
    ["no accounts", "venue: { base_url: http://x }\naccounts: []\n", "accounts: expected at least one account"],
    ["accounts not a list", "venue: { base_url: http://x }\naccounts: 3\n", "accounts: expected a list of accounts"],
    ["unknown auth type", account("{ type: oauth }"), 'accounts[0].auth.type: expected one of "api_key", "bearer", "basic", "none"'],
    [
      "misspelt auth type",
      account("{ type: apikey }"),
      'accounts[0].auth.type: expected one of "api_key", "bearer", "basic", "none" (did you mean "api_key"?)',
    ],
    [
      "api key without a secret",
      account("{ type: api_key }"),
      "accounts[0].auth.key: required (give one of accounts[0].auth.key, accounts[0].auth.key_file or accounts[0].auth.key_env)",
    ],
    [
      "api key given twice",
      account("{ type: api_key, key: k, key_env: K }"),
      "accounts[0].auth.key: give only one of accounts[0].auth.key, accounts[0].auth.key_file or accounts[0].auth.key_env",
    ],
    ["empty header name", account("{ type: api_key, key: k, header_name: '' }"), "accounts[0].auth.header_name: must be at least 1"],
    ["bad header name", account("{ type: api_key, key: k, header_name: 'X Key' }"), "accounts[0].auth.header_name: not a valid HTTP header name"],
    [
      "unset key variable",
      account("{ type: bearer, token_env: NOT_SET_ANYWHERE }"),
      "accounts[0].auth.token_env: the environment variable NOT_SET_ANYWHERE is not set or empty",
    ],
    ["basic without username", account("{ type: basic, password: p }"), "accounts[0].auth.username: required"],
    ["unknown key in auth", account("{ type: none, key: k }"), "accounts[0].auth.key: unknown key"],
    ["bad account name", account("{ type: none }").replace("name: a", "name: 'a b'"), "accounts[0].name: must be 1-64 letters, digits or _ . : -"],
    [
      "duplicate names",
      `${account("{ type: none }")}  - name: a\n    collateral_ids: [X]\n    auth: { type: none }\n`,
      "accounts[1].name: another account has this name",
    ],
    ["duplicate collateral", account("{ type: none }").replace("[USDC]", "[USDC, USDC]"), "accounts[0].collateral_ids: lists an id twice"],
    ["string for a number", `${GOOD}scrape: { max_in_flight: many }\n`, "scrape.max_in_flight: expected a whole number from 0 (no limit) to 100000"],
    [
      "zero page size",
      GOOD.replace("base_url: http://127.0.0.1:8080", "base_url: http://127.0.0.1:8080\n  history_page_size: 0"),
      "venue.history_page_size: expected a whole number from 1 to 100000",
    ],
    ["bad listen address", `${GOOD}web: { listen_address: nowhere }\n`, "web.listen_address: expected host:port (e.g. 0.0.0.0:9842 or [::1]:9842)"],
    ["bad log level", `${GOOD}log: { level: loud }\n`, "log.level: expected one of debug, info, warn, error"],
    ["bad header in headers", account("{ type: none }", "    headers: { 'a b': c }"), "accounts[0].headers.a b: not a valid HTTP header name"],
    ["not YAML", "venue: [\n", "config file: not valid YAML at line 2, column 1: a list opened with [ is not closed with ] (or not indented under its key)"],
    ["a tab as indent", "venue:\n\tbase_url: x\n", "config file: not valid YAML at line 2, column 1: a tab indents this line; YAML indents with spaces"],
    [
      "an unquoted colon",
      "venue:\n  base_url: a: b\n",
      "config file: not valid YAML at line 2, column 13: a value holds a colon followed by a space; quote the value",
    ],
    ["duplicate YAML key", `${GOOD}venue: {}\n`, "config file: not valid YAML at line 8, column 1: this key is given twice in the same map"],
    ["duplicate nested key", `${GOOD}    name: b\n`, "config file: not valid YAML at line 8, column 5: this key is given twice in the same map"],
    [
      "an alias bomb",
      `${GOOD}bomb:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 9 }, (_, i) => `  ${"bcdefghij"[i]}: &${"bcdefghij"[i]} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]\n`).join("")}`,
      "config file: its YAML aliases (*name) expand to too much; refused",
    ],
  ])("%s", (_name, text, message) => {
    expect(() => loadConfigFile(file(text), {})).toThrowError(new ConfigError(message.split("\n")));
  });

  it("names the key file it cannot read, and why", () => {
    const path = file(account("{ type: api_key, key_file: nope.txt }"));
    expect(() => loadConfigFile(path, {})).toThrowError(
      new ConfigError(`accounts[0].auth.key_file: cannot read ${JSON.stringify(join(dirname(path), "nope.txt"))}: no such file (ENOENT)`),
    );
  });

  it("refuses a file over 1 MiB in one line, even one it could read", () => {
    const big = file(`${GOOD}${"# padding\n".repeat(110_000)}`);
    expect(() => loadConfigFile(big, {})).toThrowError(new ConfigError(`config file: ${JSON.stringify(big)} is larger than 1 MiB, the most read; refused`));
    expect(() => loadConfigFile(file(`${GOOD}${"# padding\n".repeat(100_000)}`), {})).not.toThrow();
  });

  it("names an unreadable file without failing on anything else", () => {
    expect(() => loadConfigFile("/nonexistent/config.yml", {})).toThrowError(
      new ConfigError('config file: cannot read "/nonexistent/config.yml": no such file (ENOENT)'),
    );
  });

  it("keeps the unreadable file's message on one line whatever the path holds", () => {
    expect(() => loadConfigFile("/nonexistent/a\nb.yml", {})).toThrowError(
      new ConfigError('config file: cannot read "/nonexistent/a\\nb.yml": no such file (ENOENT)'),
    );
  });

  it("never puts a secret value in its message", () => {
    const text = account("{ type: api_key, key: hunter2-secret, key_env: ALSO }");
    expect(() => loadConfigFile(file(text), {})).toThrowError(expect.objectContaining({ message: expect.not.stringContaining("hunter2") }));
    const typed = account("{ type: api_key, key: [hunter2-secret] }");
    expect(() => loadConfigFile(file(typed), {})).toThrowError(expect.objectContaining({ message: expect.not.stringContaining("hunter2") }));
  });
});

describe("a config file's YAML read on a worker thread (as loadConfig reads it, so a reload never holds the event loop)", () => {
  const bomb = `a: &a [x, x, x, x, x, x, x, x, x, x]\n${[..."bcdefghij"].map((c, i) => `${c}: &${c} [${Array(10).fill(`*${"abcdefghi"[i]}`).join(", ")}]`).join("\n")}\n`;
  it.each([
    ["a good file", GOOD],
    ["a key given twice", `${GOOD}venue: {}\n`],
    ["an unclosed list", "venue: [\n"],
    ["an alias bomb", bomb],
    ["20,000 keys", Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}\n`).join("")],
  ])("reads %s as the event loop's own reader does", async (_name, text) => {
    const inline = (() => {
      try {
        return { data: parseYaml(text, "config file") };
      } catch (error) {
        return { error };
      }
    })();
    const aside = await parseYamlAside(text, "config file").then(
      (data) => ({ data }),
      (error: unknown) => ({ error }),
    );
    expect(aside).toEqual(inline);
    if ("error" in aside) expect(aside.error).toBeInstanceOf(ConfigError);
  });
});
