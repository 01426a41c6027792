// Log redaction follows the authenticators: the headers they put a credential in are the headers redacted.

import { Writable } from "node:stream";
import { decodeHTML } from "entities";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { configFromObject } from "./helpers/config-files.js";
import { echoedEverywhere, leaks } from "./helpers/echoing-venue.js";
import { createLogger } from "../src/log.js";
import { authenticator, secretHeaderNames } from "../src/venue/auth.js";
import { fields, redactor } from "./helpers/redactor.js";
import { Redactor } from "../src/util/redact.js";

function logged(secretHeaders: readonly string[], object: Record<string, unknown>): string {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  createLogger("info", sink, secretHeaders, "json", redactor).info(object, "line");
  return lines.join("");
}

const config = configFromObject(
  {
    venue: { base_url: "http://127.0.0.1:1" },
    accounts: [
      { name: "a", collateral_ids: ["X"], auth: { type: "api_key", header_name: "X-Desk-Key", key: "desk-key-value" } },
      { name: "b", collateral_ids: ["X"], auth: { type: "bearer", token: "bearer-token-value" }, headers: { "X-Tenant-Secret": "tenant" } },
      { name: "c", collateral_ids: ["X"], auth: { type: "none" } },
    ],
  },
  {},
  "/",
);

describe("log redaction", () => {
  it("takes its header names from the authenticators and the extra headers", () => {
    expect(secretHeaderNames(config.accounts).sort()).toEqual(["authorization", "x-desk-key", "x-tenant-secret"]);
    expect(authenticator(config.accounts[0]!.auth).secretHeaders).toEqual(["x-desk-key"]);
  });

  it("redacts exactly those headers, wherever the headers object sits", () => {
    const headers = { "x-desk-key": "desk-key-value", authorization: "Bearer bearer-token-value", "x-tenant-secret": "tenant", accept: "application/json" };
    const line = logged(secretHeaderNames(config.accounts), { headers, request: { headers }, req: { headers } });
    expect(line).not.toContain("desk-key-value");
    expect(line).not.toContain("bearer-token-value");
    expect(line).not.toContain('"tenant"');
    expect(line).toContain("application/json");
    expect(line.match(/<secret>/g)).toHaveLength(9);
  });

  it("follows the configured header name: a logger not told of it would show the value", () => {
    // A value no configuration holds, so only the header name can hide it.
    const headers = { "x-desk-key": "value-nobody-configured" };
    expect(logged([], { headers })).toContain("value-nobody-configured");
    expect(logged(["X-Desk-Key"], { headers })).not.toContain("value-nobody-configured");
  });
});

describe("configured header values echoed by the venue", () => {
  it("are redacted wherever the venue puts them, long or short, in answers and the log alike", async () => {
    const values = { key: "desk-key-value-7f3a", tenant: "tenant-9", extra: "x-tenant-secret-value-42" };
    const all = await echoedEverywhere(Object.values(values), (url) =>
      configFromObject(
        {
          venue: { base_url: url },
          web: { listen_address: "127.0.0.1:0" },
          accounts: [
            {
              name: "a",
              collateral_ids: ["X"],
              auth: { type: "api_key", header_name: "X-Desk-Key", key: values.key },
              headers: { "X-Tenant": values.tenant, "X-Tenant-Secret": values.extra },
            },
          ],
        },
        {},
        "/",
      ),
    );
    expect(all).toContain("<secret>");
    expect(Object.values(values).filter((v) => all.includes(v))).toEqual([]);
    expect([values.key.slice(3, 15), values.extra.slice(5, 17)].filter((run) => all.includes(run))).toEqual([]);
  });
});

/** HTML entities a key may carry, which a venue that decodes HTML echoes as the one character each stands for. */
const ENTITY = fc.constantFrom("&amp;", "&#38;", "&#x26;", "&lt;", "&gt;", "&#60;", "&#x3C;", "&#39;", "&apos;", "&quot;", "&#34;");
const PLAIN = fc.constantFrom(..."ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789-_");
const entityKeys = fc
  .array(fc.oneof({ weight: 4, arbitrary: PLAIN }, { weight: 1, arbitrary: ENTITY }), { minLength: 10, maxLength: 30 })
  .map((tokens) => tokens.join(""))
  .filter((key) => key.includes("&") && decodeHTML(key).length >= 12);

function apiKeyConfig(key: string) {
  return (url: string) =>
    configFromObject(
      {
        venue: { base_url: url },
        web: { listen_address: "127.0.0.1:0" },
        accounts: [{ name: "a", collateral_ids: ["X"], auth: { type: "api_key", header_name: "X-Desk-Key", key } }],
      },
      {},
      "/",
    );
}

describe("a key with HTML entities, echoed HTML-decoded by the venue", () => {
  it("shows neither the key nor its decoded text on the page, /metrics, the debug probe or the log", async () => {
    const keys = ["Zq7&amp;Kp2Wm9Xv", "Zq7&lt;Kp2Wm9Xv", "Zq7&#39;Kp2Wm9Xv", "Zq7&quot;Kp2Wm9Xv"];
    for (const key of keys) {
      const all = await echoedEverywhere([key], apiKeyConfig(key), decodeHTML);
      expect(all, key).toContain("<secret>");
      expect([...leaks(all, key), ...leaks(all, decodeHTML(key))], key).toEqual([]);
    }
  });

  it("reads a cut the page's escaping would write back as 12 characters of the key as <secret>", () => {
    redactor.hold(["Zq7&amp;Kp2Wm9Xv"]);
    // Eight characters, written on the page as `&amp;Kp2Wm9X`.
    expect(fields.id("&Kp2Wm9X")).toBe("<secret>");
    expect(fields.id("&Kp2")).toBe("&Kp2");
  });

  it("holds for any such key, whole or cut", async () => {
    await fc.assert(
      fc.asyncProperty(entityKeys, async (key) => {
        const all = await echoedEverywhere([key], apiKeyConfig(key), decodeHTML);
        expect([...leaks(all, key), ...leaks(all, decodeHTML(key))]).toEqual([]);
      }),
      { numRuns: 20 },
    );
  });
});

describe("a secret two configurations hold", () => {
  it("is redacted until the last of them releases it, then forgotten", () => {
    const own = new Redactor();
    const secret = "shared-across-reloads-key-31";
    const [first, second] = [own.hold([secret]), own.hold([secret])];
    first();
    expect(own.redact(`echo ${secret}`)).toBe("echo <secret>");
    second();
    expect(own.redact(`echo ${secret}`)).toBe(`echo ${secret}`);
  });
});
