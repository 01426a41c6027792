// Distinctive fake secrets in every credential slot, the exporter driven through success, every
// failure kind, reload and debug output: none of them may appear in a log line, an HTTP response
// (body or header) or a metric.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configFromObject, loadConfigFile } from "./helpers/config-files.js";
import { echoedEverywhere } from "./helpers/echoing-venue.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService, type Service } from "../src/lifecycle.js";
import { basicAuth } from "../src/http/toolkit/guards.js";
import { startSimulator, type FaultSpec, type RunningSimulator } from "../tools/simulator/server.js";
import { redactor } from "./helpers/redactor.js";

const SECRETS = {
  venueKey: "SECRET-VENUEKEY-a81f",
  wrongKey: "SECRET-WRONGKEY-b92e",
  bearer: "SECRET-BEARER-c03d",
  basicPassword: "SECRET-BASICPW-d14c",
  header: "SECRET-HEADER-e25b",
  webPassword: "SECRET-WEBPW-f36a",
  inline: "SECRET-INLINE-0a7b",
};
/** Every form a secret could leak in: as is, and inside the encodings we put on the wire. */
const NEEDLES = [
  ...Object.values(SECRETS),
  Buffer.from(`ops:${SECRETS.basicPassword}`).toString("base64"),
  Buffer.from(`prom:${SECRETS.webPassword}`).toString("base64"),
];

const seen: string[] = [];
let venue: RunningSimulator;
let service: Service;
let configText: string;
let configPath: string;
const webAuth = `Basic ${Buffer.from(`prom:${SECRETS.webPassword}`).toString("base64")}`;

async function get(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(new URL(path, service.server.url), {
    ...init,
    headers: { authorization: webAuth, ...(init.headers as Record<string, string> | undefined) },
  });
  const body = await res.text();
  seen.push(`${res.status} ${JSON.stringify([...res.headers])}\n${body}`);
  return new Response(body, { status: res.status });
}

beforeAll(async () => {
  venue = await startSimulator({ apiKey: SECRETS.venueKey, tickMs: 0 });
  const dir = mkdtempSync(join(tmpdir(), "te-secrets-"));
  writeFileSync(join(dir, "venue.key"), SECRETS.venueKey);
  writeFileSync(join(dir, "ops.pw"), SECRETS.basicPassword);
  configPath = join(dir, "config.yml");
  configText = `venue: { base_url: "${venue.url}", markets_cache_seconds: 0 }
accounts:
  - { name: good, collateral_ids: [USDC, USDT], auth: { type: api_key, key_file: venue.key }, headers: { X-Extra: ${SECRETS.header} } }
  - { name: wrong, collateral_ids: [USDC], auth: { type: api_key, key: ${SECRETS.wrongKey} } }
  - { name: bear, collateral_ids: [USDC], auth: { type: bearer, token_env: BEARER } }
  - { name: ops, collateral_ids: [USDC], auth: { type: basic, username: ops, password_file: ops.pw } }
`;
  writeFileSync(configPath, configText);
  const env = { BEARER: SECRETS.bearer, TRADING_LISTEN_ADDRESS: "127.0.0.1:0" };
  const logger = createLogger(
    "debug",
    new Writable({
      write(chunk: Buffer, _e, done) {
        seen.push(chunk.toString());
        done();
      },
    }),
    [],
    "json",
    redactor,
  );
  const source = () => loadConfigFile(configPath, env);
  service = await startService(source(), logger, {
    redactor,
    self: new SelfMetrics(),
    source,
    guards: [basicAuth({ prom: bcrypt.hashSync(SECRETS.webPassword, 4) })],
  });
});

afterAll(async () => {
  await service.close(1000);
  await venue.close();
});

const FAULTS: FaultSpec["kind"][] = [
  "status",
  "malformed_json",
  "truncated_json",
  "wrong_types",
  "missing_fields",
  "wrong_container",
  "redirect",
  "reset",
  "gzip_bomb",
  "hang",
];

describe("no secret escapes", () => {
  it("through successful and failing scrapes of every kind", async () => {
    expect((await get("/metrics")).status).toBe(200);
    for (const kind of FAULTS) {
      venue.setFaults([{ endpoint: "*", kind, ...(kind === "status" ? { status: 500 } : {}) }]);
      const res = await get("/metrics", { headers: { "x-prometheus-scrape-timeout-seconds": "1" } });
      expect(res.status).toBe(200);
    }
    for (const status of [401, 403, 404, 418, 429]) {
      venue.setFaults([{ endpoint: "*", kind: "status", status, retryAfter: "1" }]);
      await get("/metrics");
    }
    venue.clearFaults();
  });

  it("through debug probes, /probe errors, the landing page and refused requests", async () => {
    for (const target of ["good", "wrong", "bear", "ops"]) {
      const res = await get(`/probe?target=${target}&debug=true`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("<secret>");
    }
    await get(`/probe?target=${SECRETS.inline}`);
    await get("/");
    expect((await get("/metrics", { headers: { authorization: `Basic ${Buffer.from(`prom:${SECRETS.inline}`).toString("base64")}` } })).status).toBe(401);
    await get("/metrics", { method: "DELETE" });
  });

  it("through good and bad reloads", async () => {
    expect((await get("/-/reload", { method: "POST" })).status).toBe(200);
    writeFileSync(configPath, configText.replace(`key: ${SECRETS.wrongKey}`, `key: [${SECRETS.wrongKey}]`));
    expect((await get("/-/reload", { method: "POST" })).status).toBe(500);
    writeFileSync(configPath, configText.replace("token_env: BEARER", `token: ${SECRETS.inline}, token_env: BEARER`));
    expect((await get("/-/reload", { method: "POST" })).status).toBe(500);
    writeFileSync(configPath, `${configText}  - { name: x, collateral_ids: [A], auth: { type: api_key, key: "${SECRETS.inline}", nope: 1 } }\n`);
    expect((await get("/-/reload", { method: "POST" })).status).toBe(500);
    writeFileSync(configPath, configText);
    await get("/metrics");
  });

  it("so nothing collected contains any of them", () => {
    const all = seen.join("\n");
    expect(all.length).toBeGreaterThan(10_000);
    expect(all).toContain("venue endpoint failing");
    expect(all).toContain("reload failed");
    // The status page, with each account's last failure (the wrong key's is auth).
    expect(all).toMatch(/id="account-wrong"[\s\S]*?<code>auth<\/code>/);
    expect(NEEDLES.filter((n) => all.includes(n))).toEqual([]);
  });
});

describe("a venue that echoes every credential it is sent", () => {
  it("in every field, key and error body: none of them in /metrics, /probe, the debug probe or the log", async () => {
    const sent = [SECRETS.venueKey, SECRETS.header, SECRETS.bearer, SECRETS.basicPassword, Buffer.from(`ops:${SECRETS.basicPassword}`).toString("base64")];
    const all = await echoedEverywhere(sent, (url) =>
      configFromObject(
        {
          venue: { base_url: url },
          web: { listen_address: "127.0.0.1:0" },
          accounts: [
            { name: "good", collateral_ids: ["USDC"], auth: { type: "api_key", key: SECRETS.venueKey }, headers: { "X-Extra": SECRETS.header } },
            { name: "bear", collateral_ids: ["USDC"], auth: { type: "bearer", token: SECRETS.bearer } },
            { name: "ops", collateral_ids: ["USDC"], auth: { type: "basic", username: "ops", password: SECRETS.basicPassword } },
          ],
        },
        {},
        "/",
      ),
    );
    expect(all).toContain("<secret>");
    expect(sent.filter((n) => all.includes(n))).toEqual([]);
    // Nor any 12-character run of them, however the venue cut them.
    expect(sent.flatMap((n) => [n.slice(2, 14), n.slice(-12)]).filter((run) => all.includes(run))).toEqual([]);
  });
});
