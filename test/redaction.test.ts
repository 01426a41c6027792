// Log redaction follows the authenticators: the headers they put a credential in are the headers redacted.

import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { configFromObject } from "./helpers/config-files.js";
import { echoedEverywhere } from "./helpers/echoing-venue.js";
import { createLogger } from "../src/log.js";
import { authenticator, secretHeaderNames } from "../src/venue/auth.js";

function logged(secretHeaders: readonly string[], object: Record<string, unknown>): string {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  createLogger("info", sink, secretHeaders).info(object, "line");
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
