// The exporter itself behind its web config: TLS and basic auth on every path, checked with a
// real HTTPS client against the built command (dist/main.js) and the simulated venue.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../src/simulator/server.js";
import { startExporterChild, type ExporterChild } from "./helpers/child.js";

let venue: RunningSimulator;
let exporter: ExporterChild;
let ca: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "te-web-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-days",
        "1",
        "-keyout",
        join(dir, "server.key"),
        "-out",
        join(dir, "server.crt"),
      ],
      { stdio: "pipe" },
    );
  } catch (error) {
    throw new Error(`openssl is needed to make the test certificate: ${(error as Error).message}`);
  }
  ca = readFileSync(join(dir, "server.crt"), "utf8");
  writeFileSync(
    join(dir, "web.yml"),
    `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: ${bcrypt.hashSync("scrape-pw", 4)}\n`,
  );
  venue = await startSimulator({ apiKey: "k", tickMs: 0 });
  exporter = await startExporterChild({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    TRADING_WEB_CONFIG_FILE: join(dir, "web.yml"),
  });
});

afterAll(async () => {
  exporter?.child.kill("SIGTERM");
  await exporter?.exited;
  await venue?.close();
});

function get(path: string, auth?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(new URL(path, exporter.url), { ca, agent: false, headers: auth ? { authorization: auth } : {} }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString("base64")}`;

describe("the exporter with --web.config.file", () => {
  it("serves over TLS only", async () => {
    expect(exporter.url.startsWith("https://")).toBe(true);
    await expect(fetch(exporter.url.replace("https://", "http://"))).rejects.toThrow();
  });

  it.each(["/metrics", "/probe?target=default", "/-/healthy", "/"])("asks for credentials on %s", async (path) => {
    expect((await get(path)).status).toBe(401);
    expect((await get(path, basic("prom", "wrong"))).status).toBe(401);
    expect((await get(path, basic("nobody", "scrape-pw"))).status).toBe(401);
  });

  it("serves the scrape to the right user", async () => {
    const res = await get("/metrics", basic("prom", "scrape-pw"));
    expect(res.status).toBe(200);
    expect(res.body).toContain('trading_up{account="default"} 1');
  });
});
