// Secrets with line breaks, NUL and other invalid bytes planted in every place a secret can come from:
// refused at start-up, by --config.check and by a reload, with one line naming where, never the value.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configFromObject, loadConfigFile } from "./helpers/config-files.js";
import { echoedEverywhere } from "./helpers/echoing-venue.js";
import { headerValueProblem } from "../src/config/secret.js";
import { runExporter } from "./helpers/child.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";
import { redactor } from "./helpers/redactor.js";

/** Each bad value carries a distinctive part that must never be seen again. */
const BAD = {
  "line feed": "PLANTED-LF-a1\nsecondline",
  "carriage return": "PLANTED-CR-b2\r\nX-Injected: 1",
  NUL: "PLANTED-NUL-c3\u0000tail",
  "control character": "PLANTED-ESC-d4\u001b[31m",
  "non Latin-1": "PLANTED-WIDE-e5\u2028end",
};
const NEEDLES = Object.values(BAD).map((v) => v.slice(0, 13));

const dir = mkdtempSync(join(tmpdir(), "te-planting-"));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const ENV_BASE = { TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_COLLATERAL_IDS: "USDC", TRADING_LISTEN_ADDRESS: "127.0.0.1:0" };

/** An account's YAML (flow style, JSON-quoted so every byte survives) with `auth` and `headers`. */
const configYaml = (auth: Record<string, string>, headers: Record<string, string> = {}) =>
  `venue: { base_url: "http://127.0.0.1:1" }\nweb: { listen_address: "127.0.0.1:0" }\naccounts:\n  - { name: a, collateral_ids: [USDC], auth: ${JSON.stringify(auth)}, headers: ${JSON.stringify(headers)} }\n`;

interface Place {
  where: string;
  /** The environment (and config file, if any) that plants `value`. */
  plant(value: string, kind: string): { env: Record<string, string>; configText?: string };
  /** The key path or variable the error must name. */
  named: string;
}

const slug = (kind: string) => kind.replace(/\W/g, "_");

const PLACES: Place[] = [
  { where: "TRADING_API_KEY", named: "TRADING_API_KEY", plant: (v) => ({ env: { ...ENV_BASE, TRADING_API_KEY: v } }) },
  {
    where: "TRADING_API_KEY_FILE",
    named: "TRADING_API_KEY_FILE",
    plant: (v, k) => ({ env: { ...ENV_BASE, TRADING_API_KEY_FILE: file(`env-key-${slug(k)}`, `${v}\n`) } }),
  },
  {
    where: "TRADING_BEARER_TOKEN_FILE",
    named: "TRADING_BEARER_TOKEN_FILE",
    plant: (v, k) => ({ env: { ...ENV_BASE, TRADING_AUTH_TYPE: "bearer", TRADING_BEARER_TOKEN_FILE: file(`env-token-${slug(k)}`, `${v}\n`) } }),
  },
  {
    where: "TRADING_BASIC_USERNAME",
    named: "TRADING_BASIC_USERNAME",
    plant: (v) => ({ env: { ...ENV_BASE, TRADING_AUTH_TYPE: "basic", TRADING_BASIC_USERNAME: v, TRADING_BASIC_PASSWORD: "fine-password" } }),
  },
  {
    where: "TRADING_BASIC_PASSWORD",
    named: "TRADING_BASIC_PASSWORD",
    plant: (v) => ({ env: { ...ENV_BASE, TRADING_AUTH_TYPE: "basic", TRADING_BASIC_USERNAME: "u", TRADING_BASIC_PASSWORD: v } }),
  },
  { where: "key (inline)", named: "accounts[0].auth.key", plant: (v) => ({ env: {}, configText: configYaml({ type: "api_key", key: v }) }) },
  {
    where: "key_file",
    named: "accounts[0].auth.key_file",
    plant: (v, k) => ({ env: {}, configText: configYaml({ type: "api_key", key_file: file(`key-${slug(k)}`, v) }) }),
  },
  {
    where: "key_env",
    named: "accounts[0].auth.key_env",
    plant: (v) => ({ env: { PLANTED_KEY: v }, configText: configYaml({ type: "api_key", key_env: "PLANTED_KEY" }) }),
  },
  { where: "token", named: "accounts[0].auth.token", plant: (v) => ({ env: {}, configText: configYaml({ type: "bearer", token: v }) }) },
  {
    where: "token_file",
    named: "accounts[0].auth.token_file",
    plant: (v, k) => ({ env: {}, configText: configYaml({ type: "bearer", token_file: file(`token-${slug(k)}`, v) }) }),
  },
  {
    where: "password_env",
    named: "accounts[0].auth.password_env",
    plant: (v) => ({ env: { PLANTED_PW: v }, configText: configYaml({ type: "basic", username: "u", password_env: "PLANTED_PW" }) }),
  },
  {
    where: "password",
    named: "accounts[0].auth.password",
    plant: (v) => ({ env: {}, configText: configYaml({ type: "basic", username: "u", password: v }) }),
  },
  {
    where: "username",
    named: "accounts[0].auth.username",
    plant: (v) => ({ env: {}, configText: configYaml({ type: "basic", username: v, password: "fine-password" }) }),
  },
  {
    where: "extra header value",
    named: "accounts[0].headers.X-Api-Secret",
    plant: (v) => ({ env: {}, configText: configYaml({ type: "api_key", key: "fine-key" }, { "X-Api-Secret": v }) }),
  },
];

const CASES = PLACES.flatMap((place) => Object.entries(BAD).map(([kind, value]) => ({ place, kind, value })));

function noNeedle(text: string): void {
  expect(NEEDLES.filter((n) => text.includes(n))).toEqual([]);
}

describe("headerValueProblem", () => {
  it("names the kind of each invalid byte and accepts what a header may carry", () => {
    expect(Object.values(BAD).map(headerValueProblem)).toEqual([
      "contains a line break",
      "contains a line break",
      "contains a NUL byte",
      "contains a control character",
      "contains a character that is not Latin-1",
    ]);
    expect(headerValueProblem("sk_live_ok-123 with\ttab and é")).toBeUndefined();
  });
});

describe.each(["start-up", "--config.check"])("%s", (mode) => {
  // One run per place for the line feed (the reported leak), every kind for one file and one env place.
  // An environment variable cannot hold a NUL byte (the OS refuses it), so that one is planted in files only.
  const fromEnv = (c: (typeof CASES)[number]) => c.place.where.endsWith("_env") || (c.place.where.startsWith("TRADING_") && !c.place.where.endsWith("_FILE"));
  const cases = CASES.filter((c) => c.kind === "line feed" || c.place.where === "key_file" || c.place.where === "TRADING_API_KEY").filter(
    (c) => c.kind !== "NUL" || !(c.place.where === "TRADING_API_KEY" || fromEnv(c)),
  );
  it.each(cases.map((c) => [c.place.where, c.kind, c] as const))("refuses a %s with a %s, naming it only", async (_w, _k, c) => {
    const planted = c.place.plant(c.value, c.kind);
    const env = {
      ...planted.env,
      ...(planted.configText === undefined ? {} : { TRADING_CONFIG_FILE: file(`config-${Math.random()}.yml`, planted.configText) }),
    };
    const run = await runExporter(env, mode === "start-up" ? [] : ["--config.check"]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    const line = lines.find((l) => l.includes(c.place.named));
    expect(line, run.stderr).toMatch(
      /: contains (a line break|a NUL byte|a control character|a character that is not Latin-1), so it is not a valid HTTP header value/,
    );
    noNeedle(run.stderr + run.stdout);
  });
});

describe("reload", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it("refuses every planted value, keeps serving the old config, and shows none of them anywhere", async () => {
    const path = join(dir, "reload.yml");
    let text = "";
    let env: Record<string, string> = {};
    stack = await startStack({
      source: (url) => {
        writeFileSync(path, text === "" ? configYaml({ type: "api_key", key: SIM_KEY }).replace("http://127.0.0.1:1", url) : text);
        // As the exporter's own source does (main.ts): the file's parsers check the values sent as headers.
        return loadConfigFile(path, env);
      },
    });
    const seen: string[] = [];
    const placed = CASES.filter((c) => c.place.plant(c.value, c.kind).configText !== undefined);
    expect(placed.length).toBeGreaterThanOrEqual(40);
    for (const c of placed) {
      const planted = c.place.plant(c.value, c.kind);
      text = planted.configText!;
      env = planted.env;
      const res = await stack.reload();
      const body = await res.text();
      expect(res.status, `${c.place.where} with a ${c.kind}: ${body}`).toBe(500);
      expect(body).toContain(c.place.named);
      seen.push(body);
    }
    text = "";
    env = {};
    const metrics = await stack.scrape();
    expect(metrics).toContain('trading_up{account="a"} 1');
    expect(metrics).toContain("trading_exporter_config_last_reload_successful 0");
    seen.push(metrics, await (await stack.get("/probe?target=a&debug=true")).text(), ...stack.logs);
    expect(stack.logs.filter((l) => l.includes("configuration reload failed")).length).toBe(placed.length);
    noNeedle(seen.join("\n"));
  }, 60_000);
});

describe("the redactor, the last line of defence", () => {
  it("replaces a known secret in its plain, JSON-escaped and base64 forms, and any Authorization value", () => {
    const secret = 'redact-me-"quoted"-42';
    redactor.hold([secret]);
    const b64 = Buffer.from(secret).toString("base64");
    const text = `a ${secret} b ${JSON.stringify({ e: secret })} c ${b64} authorization: Basic dXNlcjpwYXNzd29yZA== Bearer abc.def-123`;
    const out = redactor.redact(text);
    expect(out).not.toContain("redact-me");
    expect(out).not.toContain(b64);
    expect(out).not.toContain("dXNlcjpwYXNzd29yZA");
    expect(out).not.toContain("abc.def-123");
    expect(out.match(/<secret>/g)?.length).toBeGreaterThanOrEqual(4);
    // Ordinary words after "basic" stay.
    expect(redactor.redact("basic authentication required")).toBe("basic authentication required");
  });
});

describe("valid values planted in every credential slot, echoed by the venue", () => {
  it("in every field, key and error body: none of them shown anywhere", async () => {
    const planted = { key: "PLANTED-KEY-f1e2d3c4", header: "PLANTED-HEADER-a9b8c7", token: "PLANTED-TOKEN-5e6f7a8b", password: "PLANTED-PASSWORD-0c1d2e" };
    const all = await echoedEverywhere(Object.values(planted), (url) =>
      configFromObject(
        {
          venue: { base_url: url },
          web: { listen_address: "127.0.0.1:0" },
          accounts: [
            { name: "a", collateral_ids: ["USDC"], auth: { type: "api_key", key: planted.key }, headers: { "X-Api-Secret": planted.header } },
            { name: "b", collateral_ids: ["USDC"], auth: { type: "bearer", token: planted.token } },
            { name: "c", collateral_ids: ["USDC"], auth: { type: "basic", username: "u", password: planted.password } },
          ],
        },
        {},
        "/",
      ),
    );
    expect(all).toContain("<secret>");
    // "PLANTED-" is 8 characters: any longer run of a value would be one left unredacted.
    expect(
      Object.values(planted)
        .flatMap((v) => [v, v.slice(0, 13), v.slice(-12)])
        .filter((n) => all.includes(n)),
    ).toEqual([]);
  });
});
