// http_server_config of the web config: HTTP/2 by ALPN on every path (node:http2 and curl --http2), HTTP/1.1 only
// with http2: false, the configured headers on every answer, and the real client seen through the HTTP/2 bridge.

import { execFile, execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect as http2Connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import bcrypt from "bcryptjs";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type ListenOptions, type RunningServer } from "../src/http/server.js";
import { startSimulator, type RunningSimulator } from "../src/simulator/server.js";
import { parseWebConfig } from "../src/web/web-config.js";
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

interface H2Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function h2Request(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": method, ":path": path, ...headers });
    const chunks: Buffer[] = [];
    let head: IncomingHttpHeaders = {};
    stream.on("response", (h) => (head = h));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve({ status: Number(head[":status"]), headers: head, body: Buffer.concat(chunks) }));
    stream.on("error", reject);
    stream.end();
  });
}

async function h2Session(url: string, options: { cert?: string; key?: string } = {}): Promise<ClientHttp2Session> {
  const session = http2Connect(url, { ca: read("server.crt"), ...options });
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

describe("the exporter with a node_exporter-style web config (TLS, headers, basic auth, rate_limit, http2 default)", () => {
  let venue: RunningSimulator;
  let exporter: ExporterChild;
  let session: ClientHttp2Session;

  beforeAll(async () => {
    writeFileSync(
      file("web.yml"),
      `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: ${bcrypt.hashSync(PASSWORD, 4)}\n` +
        `rate_limit:\n  interval: 1m\n  burst: 1000\n${HEADERS_YAML}`,
    );
    venue = await startSimulator({ apiKey: "k", tickMs: 0 });
    exporter = await startExporterChild({
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
      TRADING_WEB_CONFIG_FILE: file("web.yml"),
    });
    session = await h2Session(exporter.url);
  });

  afterAll(async () => {
    session?.close();
    exporter?.child.kill("SIGTERM");
    await exporter?.exited;
    await venue?.close();
  });

  const host = () => new URL(exporter.url).host;

  it("speaks HTTP/2 when the client offers it, HTTP/1.1 to one that does not", async () => {
    expect(session.alpnProtocol).toBe("h2");
    expect(await alpn(Number(new URL(exporter.url).port), ["h2", "http/1.1"])).toBe("h2");
    expect(await alpn(Number(new URL(exporter.url).port), ["http/1.1"])).toBe("http/1.1");
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
  ])("serves %s over HTTP/2 with the configured headers", async (path, content) => {
    const reply = await h2Request(session, path, { authorization: AUTHORIZATION });
    expect(reply.status).toBe(200);
    expect(reply.body.toString("utf8")).toContain(content);
    expect(reply.headers).toMatchObject(EXPECTED_HEADERS);
    // Connection-specific fields are not HTTP/2's (RFC 9113 8.2.2): a client must treat them as malformed.
    expect(reply.headers.connection).toBeUndefined();
    expect(reply.headers["keep-alive"]).toBeUndefined();
  });

  it("answers /sd with the address the client reached, from :authority", async () => {
    const reply = await h2Request(session, "/sd", { authorization: AUTHORIZATION });
    // The account and the venue's market list, both at the address the client reached.
    expect(JSON.parse(reply.body.toString("utf8"))).toMatchObject([{ targets: [host()] }, { targets: [host()] }]);
  });

  it("reloads over HTTP/2 (POST), answers HEAD without a body, and gzips a scrape", async () => {
    const reload = await h2Request(session, "/-/reload", { authorization: AUTHORIZATION }, "POST");
    expect([reload.status, reload.body.toString("utf8")]).toEqual([200, "configuration reloaded\n"]);
    const head = await h2Request(session, "/metrics", { authorization: AUTHORIZATION }, "HEAD");
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const gzipped = await h2Request(session, "/metrics", { authorization: AUTHORIZATION, "accept-encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.body).toString("utf8")).toContain('trading_up{account="default"} 1');
  });

  it("puts the configured headers on refusals too: 401, 404, 405", async () => {
    const refused = await Promise.all([
      h2Request(session, "/metrics"),
      h2Request(session, "/nothing-here", { authorization: AUTHORIZATION }),
      h2Request(session, "/metrics", { authorization: AUTHORIZATION }, "DELETE"),
    ]);
    expect(refused.map((r) => r.status)).toEqual([401, 404, 405]);
    for (const reply of refused) expect(reply.headers).toMatchObject(EXPECTED_HEADERS);
    expect(refused[0]!.headers["www-authenticate"]).toBe('Basic realm="trading-exporter", charset="UTF-8"');
  });

  it.each(["/", "/metrics", "/probe?target=default", "/sd", "/runbooks/", "/-/healthy", "/-/ready"])("answers curl --http2 on %s over HTTP/2", async (path) => {
    const { stdout } = await run("curl", [
      "--http2",
      "-sS",
      "--cacert",
      file("server.crt"),
      "-u",
      `prom:${PASSWORD}`,
      "-o",
      "/dev/null",
      "-w",
      "%{http_version} %{http_code}",
      new URL(path, exporter.url).href,
    ]);
    expect(stdout).toBe("2 200");
  });

  it("answers curl --http2 --compressed on /metrics with gzip and the configured headers", async () => {
    const { stdout } = await run("curl", [
      "--http2",
      "-sS",
      "--compressed",
      "-D",
      "-",
      "--cacert",
      file("server.crt"),
      "-u",
      `prom:${PASSWORD}`,
      new URL("/metrics", exporter.url).href,
    ]);
    expect(stdout).toMatch(/^HTTP\/2 200/);
    expect(stdout).toMatch(/^content-encoding: gzip\r$/m);
    expect(stdout).toMatch(/^strict-transport-security: max-age=31536000; includeSubDomains\r$/m);
    expect(stdout).toContain('trading_up{account="default"} 1');
  });
});

describe("http2: false", () => {
  it("offers HTTP/1.1 only: ALPN picks http/1.1, an h2-only client is refused, curl --http2 gets HTTP/1.1", async () => {
    const config = parseWebConfig(
      `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nhttp_server_config:\n  http2: false\n`,
      file("web.yml"),
    );
    expect(config.http2).toBe(false);
    const running = await serve({ tls: { cert: read("server.crt"), key: read("server.key") }, http2: config.http2 ?? true });
    try {
      expect(await alpn(running.port, ["h2", "http/1.1"])).toBe("http/1.1");
      await expect(h2Session(running.url)).rejects.toMatchObject({ code: "ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL" });
      const { stdout } = await run("curl", [
        "--http2",
        "-sS",
        "--cacert",
        file("server.crt"),
        "-o",
        "/dev/null",
        "-w",
        "%{http_version} %{http_code}",
        new URL("/whoami", running.url).href,
      ]);
      expect(stdout).toBe("1.1 200");
    } finally {
      await running.close(0);
    }
  });

  it("is true when absent, as in the toolkit", () => {
    expect(parseWebConfig("http_server_config:\n  headers: {}\n", file("web.yml")).http2).toBe(true);
    expect(parseWebConfig("", file("web.yml")).http2).toBe(true);
  });
});

/** An app that tells what it sees of its client, served by the exporter's own server. */
async function serve(options: ListenOptions): Promise<RunningServer & { port: number; reached: Promise<void>; closed: Promise<void> }> {
  const app = express();
  let requestReached: () => void = () => undefined;
  let requestClosed: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (requestReached = resolve));
  const closed = new Promise<void>((resolve) => (requestClosed = resolve));
  app.get("/whoami", (req, res) => {
    const socket = req.socket as typeof req.socket & { getPeerCertificate?: () => { subject?: { CN?: string } } };
    res.json({
      remoteAddress: req.socket.remoteAddress,
      remotePort: req.socket.remotePort,
      localPort: req.socket.localPort,
      protocol: req.protocol,
      peer: socket.getPeerCertificate?.().subject?.CN,
      forwarded: req.get("x-forwarded-for") ?? null,
    });
  });
  // Never answers: the client gives up, and the app must learn of it.
  app.get("/hang", (req) => {
    req.on("close", requestClosed);
    requestReached();
  });
  const running = await listen(app, "127.0.0.1", 0, options);
  return { ...running, port: Number(new URL(running.url).port), reached, closed };
}

describe("the HTTP/2 bridge", () => {
  const tls = () => ({ cert: read("server.crt"), key: read("server.key"), ca: read("scraper.crt"), requestCert: true, rejectUnauthorized: true });
  const scraper = () => ({ cert: read("scraper.crt"), key: read("scraper.key") });

  it("shows the app the real client: its address and port (basic auth's per-address fairness), TLS and its certificate", async () => {
    const running = await serve({ tls: tls() });
    const session = await h2Session(running.url, scraper());
    try {
      const reply = await h2Request(session, "/whoami", { "x-forwarded-for": "10.9.8.7" });
      expect(session.alpnProtocol).toBe("h2");
      expect(JSON.parse(reply.body.toString("utf8"))).toEqual({
        remoteAddress: "127.0.0.1",
        remotePort: session.socket.localPort,
        localPort: running.port,
        protocol: "https",
        peer: "scraper",
        // Passed on as a request header like any other; the address the app trusts is the socket's.
        forwarded: "10.9.8.7",
      });
      // A client without a certificate is refused by the TLS layer: no request of it reaches the app.
      const refused = h2Session(running.url).then((anonymous) => h2Request(anonymous, "/whoami"));
      await expect(refused).rejects.toMatchObject({ code: "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED" });
    } finally {
      session.close();
      await running.close(0);
    }
  });

  it("ends the app's request when the client resets its stream", async () => {
    const running = await serve({ tls: { cert: read("server.crt"), key: read("server.key") } });
    const session = await h2Session(running.url);
    try {
      const stream = session.request({ ":path": "/hang" });
      stream.on("error", () => undefined);
      stream.end();
      await running.reached;
      stream.close(constants.NGHTTP2_CANCEL);
      await running.closed;
    } finally {
      session.close();
      await running.close(0);
    }
  });

  it("answers a body the app never reads (a 4 MB POST) and serves on, whatever the client does with its stream", async () => {
    const running = await serve({ tls: { cert: read("server.crt"), key: read("server.key") } });
    const session = await h2Session(running.url);
    try {
      const body = Buffer.alloc(4 * 2 ** 20, 120);
      const answered = new Promise<number>((resolve, reject) => {
        const stream = session.request({ ":method": "POST", ":path": "/whoami" });
        stream.on("response", (h) => resolve(Number(h[":status"])));
        stream.on("error", reject);
        stream.end(body);
      });
      expect(await answered).toBe(404);
      // A POST cut off half-way by a reset.
      const cut = session.request({ ":method": "POST", ":path": "/whoami" });
      cut.on("error", () => undefined);
      cut.write(body.subarray(0, 2 ** 20));
      cut.close(constants.NGHTTP2_CANCEL);
      await once(cut, "close");
      expect((await h2Request(session, "/whoami")).status).toBe(200);
    } finally {
      session.close();
      await running.close(0);
    }
  });

  it("closes a connection that opens no stream within the header timeout, as an HTTP/1.1 one without headers", async () => {
    const running = await serve({ tls: { cert: read("server.crt"), key: read("server.key") }, headersTimeoutMs: 200 });
    try {
      const session = await h2Session(running.url);
      await once(session, "close");
      expect(session.destroyed).toBe(true);
    } finally {
      await running.close(0);
    }
  });
});
