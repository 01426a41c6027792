// http_server_config of the web config: http2 accepted as in exporter-toolkit (a start-up notice when true), HTTP/1.1
// served either way (ALPN settles on it with node:http2, node:tls and curl --http2), the configured headers on every answer.

import { execFile, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { connect as http2Connect, type ClientHttp2Session } from "node:http2";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import bcrypt from "bcryptjs";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "./helpers/listen.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { readTlsPems, tlsOptionsFrom } from "../src/http/toolkit/tls-config.js";
import { parseWebConfig } from "../src/http/toolkit/web-config.js";
import { startExporterChild, type ExporterChild } from "./helpers/child.js";

const run = promisify(execFile);

/** Every header the toolkit allows, as its own sample file sets them (X-XSS-Protection a bare number, as YAML reads it). */
const HEADERS_YAML = `http_server_config:
  headers:
    X-Frame-Options: deny
    Strict-Transport-Security: max-age=31536000; includeSubDomains
    X-Content-Type-Options: nosniff
    X-XSS-Protection: 1
    Content-Security-Policy: "default-src 'self' *.test.example.net"
`;
const EXPECTED_HEADERS = {
  "x-frame-options": "deny",
  "strict-transport-security": "max-age=31536000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-xss-protection": "1",
  "content-security-policy": "default-src 'self' *.test.example.net",
};
const PASSWORD = "scrape-pw";
const AUTHORIZATION = `Basic ${Buffer.from(`prom:${PASSWORD}`).toString("base64")}`;

let dir = "";
const file = (name: string): string => join(dir, name);
const read = (name: string): string => readFileSync(file(name), "utf8");

function certificate(name: string, cn: string): void {
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", `/CN=${cn}`, "-addext", `subjectAltName=IP:127.0.0.1`, "-days", "1"].concat([
        "-keyout",
        file(`${name}.key`),
        "-out",
        file(`${name}.crt`),
      ]),
      { stdio: "pipe" },
    );
  } catch (error) {
    throw new Error(`openssl is needed to make the test certificates: ${(error as Error).message}`);
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "web-http2-"));
  certificate("server", "127.0.0.1");
  certificate("scraper", "scraper");
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTPS request (HTTP/1.1), trusting the test certificate. */
function httpsRequest(url: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers, ca: read("server.crt"), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** An HTTP/2-only client: connects only if the server's ALPN offers h2. */
async function h2Session(url: string): Promise<ClientHttp2Session> {
  const session = http2Connect(url, { ca: read("server.crt") });
  session.on("error", () => undefined);
  await once(session, "connect");
  return session;
}

/** The protocol the server picks by ALPN when a client offers `protocols`. */
async function alpn(port: number, protocols: string[]): Promise<string | false> {
  const socket = tlsConnect({ host: "127.0.0.1", port, ca: read("server.crt"), ALPNProtocols: protocols });
  try {
    await once(socket, "secureConnect");
    return socket.alpnProtocol ?? false;
  } finally {
    socket.destroy();
  }
}

/** curl --http2 (h2 preferred by ALPN, http/1.1 offered too) against the test certificate. */
function curlHttp2(url: string, args: string[]): Promise<{ stdout: string }> {
  return run("curl", ["--http2", "-sS", "--cacert", file("server.crt"), ...args, url]);
}

describe("the exporter with a node_exporter-style web config (TLS, headers, basic auth, rate_limit, http2: true)", () => {
  let venue: RunningSimulator;
  let exporter: ExporterChild;

  beforeAll(async () => {
    writeFileSync(
      file("web.yml"),
      `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: ${bcrypt.hashSync(PASSWORD, 4)}\n` +
        `rate_limit:\n  interval: 1m\n  burst: 1000\n${HEADERS_YAML}  http2: true\n`,
    );
    venue = await startSimulator({ apiKey: "k", tickMs: 0 });
    exporter = await startExporterChild({
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
      TRADING_WEB_CONFIG_FILE: file("web.yml"),
    });
  });

  afterAll(async () => {
    exporter?.child.kill("SIGTERM");
    await exporter?.exited;
    await venue?.close();
  });

  const host = () => new URL(exporter.url).host;
  const port = () => Number(new URL(exporter.url).port);

  it("settles on HTTP/1.1 by ALPN, whether the client prefers h2 or offers HTTP/1.1 alone; an h2-only client is refused", async () => {
    expect(await alpn(port(), ["h2", "http/1.1"])).toBe("http/1.1");
    expect(await alpn(port(), ["http/1.1"])).toBe("http/1.1");
    await expect(h2Session(exporter.url)).rejects.toMatchObject({ code: "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL" });
  });

  it.each([
    ["/", "<h1>trading-exporter</h1>"],
    ["/metrics", 'trading_up{account="default"} 1'],
    ["/probe?target=default", 'trading_up{account="default"} 1'],
    ["/probe?target=default&debug=true", "default"],
    ["/sd", '"__param_target":"default"'],
    ["/runbooks/", "TradingExporterDown"],
    ["/-/healthy", "Healthy"],
    ["/-/ready", "Ready"],
  ])("serves %s with the configured headers", async (path, content) => {
    const reply = await httpsRequest(exporter.url, path, { authorization: AUTHORIZATION });
    expect(reply.status).toBe(200);
    expect(reply.body.toString("utf8")).toContain(content);
    expect(reply.headers).toMatchObject(EXPECTED_HEADERS);
  });

  it("answers /sd with the address the client reached, from Host", async () => {
    const reply = await httpsRequest(exporter.url, "/sd", { authorization: AUTHORIZATION });
    // The account and the venue's market list, both at the address the client reached.
    expect(JSON.parse(reply.body.toString("utf8"))).toMatchObject([{ targets: [host()] }, { targets: [host()] }]);
  });

  it("reloads (POST), answers HEAD without a body, and gzips a scrape", async () => {
    const reload = await httpsRequest(exporter.url, "/-/reload", { authorization: AUTHORIZATION }, "POST");
    expect([reload.status, reload.body.toString("utf8")]).toEqual([200, "configuration reloaded\n"]);
    const head = await httpsRequest(exporter.url, "/metrics", { authorization: AUTHORIZATION }, "HEAD");
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const gzipped = await httpsRequest(exporter.url, "/metrics", { authorization: AUTHORIZATION, "accept-encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.body).toString("utf8")).toContain('trading_up{account="default"} 1');
  });

  it("puts the configured headers on refusals too: 401, 404, 405", async () => {
    const refused = await Promise.all([
      httpsRequest(exporter.url, "/metrics"),
      httpsRequest(exporter.url, "/nothing-here", { authorization: AUTHORIZATION }),
      httpsRequest(exporter.url, "/metrics", { authorization: AUTHORIZATION }, "DELETE"),
    ]);
    expect(refused.map((r) => r.status)).toEqual([401, 404, 405]);
    for (const reply of refused) expect(reply.headers).toMatchObject(EXPECTED_HEADERS);
    expect(refused[0]!.headers["www-authenticate"]).toBe('Basic realm="trading-exporter", charset="UTF-8"');
  });

  it.each(["/", "/metrics", "/probe?target=default", "/sd", "/runbooks/", "/-/healthy", "/-/ready"])(
    "answers curl --http2 on %s over HTTP/1.1",
    async (path) => {
      const { stdout } = await curlHttp2(new URL(path, exporter.url).href, ["-u", `prom:${PASSWORD}`, "-o", "/dev/null", "-w", "%{http_version} %{http_code}"]);
      expect(stdout).toBe("1.1 200");
    },
  );

  it("answers curl --http2 --compressed on /metrics over HTTP/1.1 with gzip and the configured headers", async () => {
    const { stdout } = await curlHttp2(new URL("/metrics", exporter.url).href, ["--compressed", "-D", "-", "-u", `prom:${PASSWORD}`]);
    expect(stdout).toMatch(/^HTTP\/1\.1 200/);
    expect(stdout).toMatch(/^content-encoding: gzip\r$/im);
    expect(stdout).toMatch(/^strict-transport-security: max-age=31536000; includeSubDomains\r$/im);
    expect(stdout).toContain('trading_up{account="default"} 1');
  });

  it("accepts http2: true and says once, at start-up, that it serves HTTP/1.1 (not again on a reload)", () => {
    const notices = exporter.lines.filter((line) => line.includes("http_server_config.http2"));
    expect(notices).toHaveLength(1);
    expect(JSON.parse(notices[0]!)).toMatchObject({ level: "INFO", msg: expect.stringContaining("HTTP/1.1") });
  });
});

describe("http2: false", () => {
  it("is accepted, and the server offers HTTP/1.1 alone: ALPN picks http/1.1, an h2-only client is refused, curl --http2 gets HTTP/1.1", async () => {
    const config = parseWebConfig(
      `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nhttp_server_config:\n  http2: false\n`,
      file("web.yml"),
    );
    expect(config.http2).toBe(false);
    const app = express();
    app.get("/whoami", (req, res) => res.json({ protocol: req.protocol, httpVersion: req.httpVersion }));
    const running = await listen(app, "127.0.0.1", 0, { tls: config.tls && tlsOptionsFrom(config.tls, readTlsPems(config.tls)) });
    try {
      expect(await alpn(Number(new URL(running.url).port), ["h2", "http/1.1"])).toBe("http/1.1");
      await expect(h2Session(running.url)).rejects.toMatchObject({ code: "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL" });
      const { stdout } = await curlHttp2(new URL("/whoami", running.url).href, ["-w", " %{http_version} %{http_code}"]);
      expect(stdout).toBe('{"protocol":"https","httpVersion":"1.1"} 1.1 200');
    } finally {
      await running.close(0);
    }
  });

  it("keeps what the file says, and nothing when it says nothing", () => {
    expect(parseWebConfig("http_server_config:\n  http2: true\n", file("web.yml")).http2).toBe(true);
    expect(parseWebConfig("http_server_config:\n  headers: {}\n", file("web.yml")).http2).toBeUndefined();
    expect(parseWebConfig("", file("web.yml")).http2).toBeUndefined();
  });
});
