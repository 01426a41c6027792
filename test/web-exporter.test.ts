// The exporter itself behind its web config: TLS and basic auth on every path, checked with a
// real HTTPS client against the built command (dist/main.js) and the simulated venue.

import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { startExporterChild, type ExporterChild } from "./helpers/child.js";

let venue: RunningSimulator;
let exporter: ExporterChild;
let ca: string;

let dir = "";

/** A self-signed certificate for 127.0.0.1 in `dir`, as <name>.crt and <name>.key. */
function certificate(name: string): void {
  const subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"];
  const out = ["-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.crt`)];
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", ...subject, "-days", "1", ...out], { stdio: "pipe" });
  } catch (error) {
    throw new Error(`openssl is needed to make the test certificate: ${(error as Error).message}`);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "te-web-"));
  certificate("server");
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

  it("serves a renewed certificate file without a restart", async () => {
    const served = () =>
      new Promise<string>((resolve, reject) => {
        request(new URL("/-/healthy", exporter.url), { rejectUnauthorized: false, agent: false }, (res) => {
          res.resume();
          resolve((res.socket as TLSSocket).getPeerCertificate().fingerprint256);
        })
          .on("error", reject)
          .end();
      });
    const fingerprint = (file: string) => new X509Certificate(readFileSync(join(dir, file))).fingerprint256;
    expect(await served()).toBe(fingerprint("server.crt"));
    certificate("renewed");
    // The key first: until the certificate matches it, the old pair keeps serving.
    copyFileSync(join(dir, "renewed.key"), join(dir, "server.key"));
    copyFileSync(join(dir, "renewed.crt"), join(dir, "server.crt"));
    const deadline = Date.now() + 15_000;
    let now = await served();
    while (now !== fingerprint("renewed.crt") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      now = await served();
    }
    expect(now).toBe(fingerprint("renewed.crt"));
    ca = readFileSync(join(dir, "renewed.crt"), "utf8");
  });

  it("serves the scrape to the right user", async () => {
    const res = await get("/metrics", basic("prom", "scrape-pw"));
    expect(res.status).toBe(200);
    expect(res.body).toContain('trading_up{account="default"} 1');
  });
});
