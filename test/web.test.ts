// The exporter's own endpoint: web config validation messages, basic auth with its timing defences, and TLS.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest, Server as HttpsServer, type RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server as TlsServer, type TLSSocket } from "node:tls";
import bcrypt from "bcryptjs";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { listen } from "./helpers/listen.js";
import { BcryptWorker } from "../src/http/toolkit/check-queue.js";
import { basicAuth, webGuards } from "../src/http/toolkit/guards.js";
import { readTlsPems, tlsOptionsFrom } from "../src/http/toolkit/tls-config.js";
import { loadWebConfig, parseWebConfig, type WebConfig } from "../src/http/toolkit/web-config.js";

const COST = 6;
const PASSWORD = "correct horse battery staple";
const HASH = bcrypt.hashSync(PASSWORD, COST);

let dir = "";

/** Runs openssl; the TLS tests need it, so its absence fails them with a message instead of skipping. */
function openssl(args: string[]): void {
  try {
    execFileSync("openssl", args, { stdio: "pipe" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error("openssl is required to generate the test certificates but was not found on PATH");
    }
    throw error;
  }
}

function selfSigned(name: string, cn: string): void {
  const [key, cert] = [pem(`${name}.key`), pem(`${name}.crt`)];
  const subject = ["-subj", `/CN=${cn}`, "-addext", `subjectAltName=IP:${cn}`];
  openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", ...subject, "-days", "1", "-keyout", key, "-out", cert]);
}

const pem = (file: string): string => join(dir, file);
const read = (file: string): string => readFileSync(pem(file), "utf8");

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "web-test-"));
  selfSigned("server", "127.0.0.1");
  selfSigned("other", "127.0.0.1");
  selfSigned("client", "127.0.0.1");
  writeFileSync(join(dir, "garbage.crt"), "not a certificate\n");
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function loadError(text: string): unknown {
  try {
    loadWebConfig(writeConfig("bad.yml", text));
  } catch (error) {
    return error;
  }
  return undefined;
}

const TLS_OK = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

/** The real bcrypt thread, `onCheck` called with the hash before each check. */
function counted(onCheck: (hash: string) => void): (password: string, hash: string) => Promise<boolean> {
  const worker = new BcryptWorker();
  return (password, hash) => {
    onCheck(hash);
    return worker.compare(password, hash);
  };
}

describe("web config file", () => {
  const bad: Array<[string, string, string]> = [
    ["unknown top-level key", "tls_config: {}\n", "web config: tls_config: unknown key"],
    ["unknown key inside tls_server_config", `${TLS_OK}  verify_depth: 2\n`, "web config: tls_server_config.verify_depth: unknown key"],
    ["cert_file missing", "tls_server_config:\n  key_file: server.key\n", "web config: tls_server_config.cert_file: required (or cert with the PEM inline)"],
    ["cert_file not a string", "tls_server_config:\n  cert_file: 12\n  key_file: server.key\n", "web config: tls_server_config.cert_file: expected string"],
    ["cert_file empty", "tls_server_config:\n  cert_file: ''\n  key_file: server.key\n", "web config: tls_server_config.cert_file: must not be empty"],
    ["tls_server_config empty", "tls_server_config:\n", "web config: tls_server_config: expected object"],
    ["min_version bad", `${TLS_OK}  min_version: SSL30\n`, 'web config: tls_server_config.min_version: expected one of "TLS10", "TLS11", "TLS12", "TLS13"'],
    [
      "hash not bcrypt",
      "basic_auth_users:\n  alice: $1$saltsalt$qjXMvbEw8oaL.CzflDugX/\n",
      "web config: basic_auth_users.alice: not a bcrypt hash ($2a$, $2b$ or $2y$ with cost 04-31)",
    ],
    [
      "bcrypt cost below 4",
      `basic_auth_users:\n  alice: "${HASH.replace(/^\$2b\$06\$/, "$2b$03$")}"\n`,
      "web config: basic_auth_users.alice: not a bcrypt hash ($2a$, $2b$ or $2y$ with cost 04-31)",
    ],
    ["hash not a string", "basic_auth_users:\n  alice: 42\n", "web config: basic_auth_users.alice: expected string"],
    ["user name with a colon", `basic_auth_users:\n  "a:b": "${HASH}"\n`, "web config: basic_auth_users.a:b: a user name must be non-empty and without ':'"],
    ["users not a map", "basic_auth_users: [alice]\n", "web config: basic_auth_users: expected record"],
    [
      "unreadable cert",
      "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
      'web config: tls_server_config.cert_file: cannot read "DIR/missing.crt": no such file (ENOENT)',
    ],
    [
      "cert is a directory",
      "tls_server_config:\n  cert_file: .\n  key_file: server.key\n",
      'web config: tls_server_config.cert_file: cannot read "DIR": a folder, not a file (EISDIR)',
    ],
    [
      "cert not PEM",
      "tls_server_config:\n  cert_file: garbage.crt\n  key_file: server.key\n",
      "web config: tls_server_config.cert_file: not a PEM certificate (ERR_OSSL_PEM_NO_START_LINE)",
    ],
    [
      "key of another cert",
      "tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n",
      "web config: tls_server_config.key_file: does not match cert_file (ERR_OSSL_X509_KEY_VALUES_MISMATCH)",
    ],
    [
      "client CA without a certificate",
      `${TLS_OK}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: garbage.crt\n`,
      "web config: tls_server_config.client_ca_file: not a PEM certificate (ERR_OSSL_PEM_NO_START_LINE)",
    ],
    ["http_server_config.http2 not a boolean", "http_server_config:\n  http2: sometimes\n", "web config: http_server_config.http2: expected boolean"],
    [
      "header not allowed",
      "http_server_config:\n  headers:\n    Set-Cookie: a=b\n",
      "web config: http_server_config.headers.Set-Cookie: cannot be configured (allowed: Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options, X-XSS-Protection, Content-Security-Policy)",
    ],
    [
      "header value outside its set",
      "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
      'web config: http_server_config.headers.X-Frame-Options: expected one of "deny", "sameorigin"',
    ],
    [
      "header value beyond Latin-1 (Node would refuse it on every answer)",
      'http_server_config:\n  headers:\n    Content-Security-Policy: "default-src \u20ac"\n',
      "web config: http_server_config.headers.Content-Security-Policy: contains a character that is not Latin-1, so it is not a valid HTTP header value",
    ],
    [
      "header value with a control character",
      'http_server_config:\n  headers:\n    Strict-Transport-Security: "max-age=1\\u0001"\n',
      "web config: http_server_config.headers.Strict-Transport-Security: contains a control character, so it is not a valid HTTP header value",
    ],
    [
      "bad YAML",
      `basic_auth_users:\n  alice: [${HASH}\n`,
      "web config: not valid YAML at line 3, column 1: a list opened with [ is not closed with ] (or not indented under its key)",
    ],
    [
      "duplicate key",
      `basic_auth_users:\n  alice: "${HASH}"\n  alice: "${HASH}"\n`,
      "web config: not valid YAML at line 3, column 3: this key is given twice in the same map",
    ],
    ["top level a list", "- tls_server_config\n", "web config: (top level): expected object"],
  ];

  it.each(bad)("rejects %s with one exact line", (_name, text, message) => {
    const error = loadError(text);
    expect(error).toBeInstanceOf(ConfigError);
    // DIR: the folder of the web config, which its relative paths are read from.
    expect((error as Error).message).toBe(message.replace("DIR", dir));
    expect((error as Error).message).not.toContain(HASH.slice(7));
  });

  it("names a missing web config file", () => {
    const missing = join(dir, "nope.yml");
    expect(() => loadWebConfig(missing)).toThrow(new ConfigError(`web config: cannot read ${JSON.stringify(missing)}: no such file (ENOENT)`));
  });

  it("loads a full file, resolving relative paths against its own directory", () => {
    mkdirSync(join(dir, "conf"), { recursive: true });
    const text = [
      "tls_server_config:",
      "  cert_file: ../server.crt",
      `  key_file: ${pem("server.key")}`,
      "  min_version: TLS13",
      "  client_ca_file: ../client.crt",
      "  client_auth_type: RequireAndVerifyClientCert",
      "http_server_config:",
      "  http2: true",
      "  headers:",
      "    X-Frame-Options: deny",
      "basic_auth_users:",
      `  alice: ${HASH}`,
      `  bob: "${HASH.replace(/^\$2b\$/, "$2y$")}"`,
      "",
    ].join("\n");
    const config = loadWebConfig(writeConfig("conf/web.yml", text));
    expect(config).toEqual({
      tls: {
        cert: { file: pem("server.crt") },
        key: { file: pem("server.key") },
        clientCa: { file: pem("client.crt") },
        clientAuthType: "RequireAndVerifyClientCert",
        minVersion: "TLS13",
        maxVersion: "TLS13",
        preferServerCipherSuites: true,
        clientAllowedSans: undefined,
        cipherSuites: undefined,
        curvePreferences: undefined,
      },
      basicAuthUsers: { alice: HASH, bob: HASH.replace(/^\$2b\$/, "$2y$") },
      headers: { "X-Frame-Options": "deny" },
      http2: true,
    } satisfies WebConfig);
  });

  it("defaults min_version to TLS12 and treats an empty file as nothing turned on", () => {
    expect(parseWebConfig(TLS_OK, pem("web.yml")).tls?.minVersion).toBe("TLS12");
    expect(parseWebConfig("# nothing yet\n", pem("web.yml"))).toStrictEqual({ tls: undefined, basicAuthUsers: {}, headers: {} });
  });
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  protocol: string | null;
}

/** The exporter's own server (http/server.ts, with its timeouts) serving `app` with this web config. */
async function serve(config: WebConfig) {
  const running = await listen(appWith(config), "127.0.0.1", 0, { tls: config.tls && tlsOptionsFrom(config.tls, readTlsPems(config.tls)) });
  const port = Number(new URL(running.url).port);
  return { server: running.server, port, close: () => running.close(0) };
}

function get(port: number, options: RequestOptions & { tls?: boolean } = {}): Promise<Reply> {
  const { tls = false, ...rest } = options;
  const send = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send({ host: "127.0.0.1", port, path: "/metrics", agent: false, ...rest }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("error", reject);
      res.on("end", () => {
        const protocol = tls ? (res.socket as TLSSocket).getProtocol() : null;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, protocol });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

function appWith(config: WebConfig): express.Express {
  const app = express();
  for (const guard of webGuards(config)) app.use(guard);
  app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
  return app;
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("basic auth", () => {
  it("asks for credentials, refuses bad ones, admits good ones, and adds the configured headers", async () => {
    const config: WebConfig = {
      tls: undefined,
      basicAuthUsers: { alice: HASH, bob: HASH.replace(/^\$2b\$/, "$2y$") },
      headers: { "X-Content-Type-Options": "nosniff" },
    };
    const { server, port, close } = await serve(config);
    expect(server).not.toBeInstanceOf(HttpsServer);
    try {
      const none = await get(port);
      expect(none.status).toBe(401);
      expect(none.headers["www-authenticate"]).toBe('Basic realm="trading-exporter", charset="UTF-8"');
      expect(none.headers["x-content-type-options"]).toBe("nosniff");
      expect(none.body.trimEnd().split("\n")).toHaveLength(1);

      const wrong = await get(port, { headers: { authorization: basic("alice", "hunter2") } });
      expect(wrong.status).toBe(401);
      expect(wrong.body).not.toContain("hunter2");
      expect((await get(port, { headers: { authorization: basic("mallory", PASSWORD) } })).status).toBe(401);
      expect((await get(port, { headers: { authorization: `Bearer ${PASSWORD}` } })).status).toBe(401);
      expect((await get(port, { headers: { authorization: "Basic bm9jb2xvbg==" } })).status).toBe(401);

      const right = await get(port, { headers: { authorization: basic("alice", PASSWORD) } });
      expect(right).toMatchObject({ status: 200, body: "up 1\n" });
      expect(right.headers["x-content-type-options"]).toBe("nosniff");
      // htpasswd writes $2y$; it must verify like $2b$.
      expect((await get(port, { headers: { authorization: basic("bob", PASSWORD) } })).status).toBe(200);
    } finally {
      await close();
    }
  });

  it("passes everything through when no users are configured", async () => {
    const config: WebConfig = { tls: undefined, basicAuthUsers: {}, headers: {} };
    const { port, close } = await serve(config);
    try {
      expect((await get(port)).status).toBe(200);
    } finally {
      await close();
    }
  });

  it("makes an unknown user cost a bcrypt compare like a wrong password, and caches a good check", async () => {
    // Each check the guard asks of the real bcrypt thread, with the hash it ran against.
    const ran: string[] = [];
    const app = express();
    app.use(basicAuth({ alice: HASH }, { compare: counted((hash) => ran.push(hash)) }));
    app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
    const { port, close } = await serveApp(app);
    try {
      const as = async (user: string, password: string) => (await get(port, { headers: { authorization: basic(user, password) } })).status;
      expect(await as("mallory", PASSWORD)).toBe(401);
      expect(await as("alice", "not it")).toBe(401);
      // The unknown user paid one compare at the configured cost, against a hash that is not alice's.
      expect(ran).toHaveLength(2);
      expect(ran[0]).not.toBe(HASH);
      expect(bcrypt.getRounds(ran[0] ?? "")).toBe(COST);
      expect(ran[1]).toBe(HASH);

      expect(await as("alice", PASSWORD)).toBe(200);
      expect(ran).toHaveLength(3);
      expect(await as("alice", PASSWORD)).toBe(200);
      expect(ran).toHaveLength(3);
    } finally {
      await close();
    }
  });
});

async function serveApp(app: express.Express) {
  const running = await listen(app, "127.0.0.1", 0);
  return { port: Number(new URL(running.url).port), close: () => running.close(100) };
}

describe("basic auth under a flood of wrong passwords", () => {
  it("refuses a repeated wrong password without bcrypt, and the same new credentials share one check", async () => {
    let checks = 0;
    const app = express();
    app.use(basicAuth({ alice: HASH }, { compare: counted(() => checks++) }));
    app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
    const { port, close } = await serveApp(app);
    try {
      for (let i = 0; i < 3; i++) expect((await get(port, { headers: { authorization: basic("alice", "wrong") } })).status).toBe(401);
      expect(checks).toBe(1);
      const together = await Promise.all([1, 2, 3].map(() => get(port, { headers: { authorization: basic("alice", PASSWORD) } })));
      expect(together.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(checks).toBe(2);
    } finally {
      await close();
    }
  });

  it("admits a scrape whose credentials passed before while wrong-password checks queue, and answers 429 past the queue", async () => {
    // Cost 10 (~100 ms a check, as a web config usually has): the queued checks take a good while.
    const hash = bcrypt.hashSync(PASSWORD, 10);
    let checks = 0;
    const app = express();
    app.use(basicAuth({ alice: hash }, { compare: counted(() => checks++) }));
    app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
    const { port, close } = await serveApp(app);
    try {
      expect((await get(port, { headers: { authorization: basic("alice", PASSWORD) } })).status).toBe(200);
      const finished: string[] = [];
      const flood = Array.from({ length: 20 }, (_, i) =>
        get(port, { headers: { authorization: basic(i % 2 === 0 ? "alice" : `mallory${i}`, `guess ${i}`) } }).then((r) => {
          finished.push("flood");
          return r.status;
        }),
      );
      const scrape = await get(port, { headers: { authorization: basic("alice", PASSWORD) } });
      finished.push("scrape");
      const statuses = await Promise.all(flood);
      expect(scrape).toMatchObject({ status: 200, body: "up 1\n" });
      // The scrape did not wait for the queued checks: at most the refused-at-once answers came before it.
      expect(finished.indexOf("scrape")).toBeLessThanOrEqual(statuses.filter((s) => s === 429).length);
      // None admitted; each 401 cost one check, the bound per address turned the rest away with 429 at once
      // (all come from 127.0.0.1, which holds one check at a time, so of 20 arriving together most are turned away).
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
      expect(checks - 1).toBe(statuses.filter((s) => s === 401).length);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});

describe("basic auth: a first login during a flood from another host", () => {
  it("finds a place: one client address holds at most one of the queued checks", async () => {
    const hash = bcrypt.hashSync(PASSWORD, 10);
    const app = express();
    app.use(basicAuth({ alice: hash }));
    app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
    const { port, close } = await serveApp(app);
    try {
      // The flood comes from 127.0.0.2, each request a new wrong password; Prometheus never logged in yet.
      let answered = 0;
      let fifteen: () => void = () => undefined;
      const mostAnswered = new Promise<void>((resolve) => (fifteen = resolve));
      const flood = Array.from({ length: 20 }, (_, i) =>
        get(port, { localAddress: "127.0.0.2", headers: { authorization: basic("alice", `guess ${i}`) } }).then((r) => {
          if (++answered === 15) fifteen();
          return r.status;
        }),
      );
      // At least 16 of 20 are refused at once whatever the bound, so once 15 are back the rest are queued.
      await mostAnswered;
      const scrape = await get(port, { headers: { authorization: basic("alice", PASSWORD) } });
      expect(scrape).toMatchObject({ status: 200, body: "up 1\n" });
      const statuses = await Promise.all(flood);
      // One check at a time per client address.
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(1);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    } finally {
      await close();
    }
  });
});

function tlsConfig(extra = ""): WebConfig {
  return parseWebConfig(`${TLS_OK}${extra}`, pem("web.yml"));
}

describe("TLS", () => {
  it("serves HTTPS to a client trusting the certificate, and nothing over plain HTTP", async () => {
    const config = tlsConfig();
    const { server, port, close } = await serve(config);
    expect(server).toBeInstanceOf(TlsServer);
    try {
      const reply = await get(port, { tls: true, ca: read("server.crt") });
      expect(reply).toMatchObject({ status: 200, body: "up 1\n" });
      await expect(get(port, { tls: true })).rejects.toMatchObject({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
      // Node's TLS server drops a connection that does not open with a TLS handshake.
      await expect(get(port)).rejects.toMatchObject({ code: "ECONNRESET" });
    } finally {
      await close();
    }
  });

  it("with min_version TLS13 refuses a client that stops at TLS 1.2", async () => {
    const strict = tlsConfig("  min_version: TLS13\n");
    const lenient = tlsConfig();
    const strictServer = await serve(strict);
    const lenientServer = await serve(lenient);
    const ca = read("server.crt");
    try {
      await expect(get(strictServer.port, { tls: true, ca, maxVersion: "TLSv1.2" })).rejects.toThrow(/protocol version/i);
      expect((await get(strictServer.port, { tls: true, ca })).protocol).toBe("TLSv1.3");
      // The same client is served by a TLS12 server, so the refusal above is the config's doing.
      expect((await get(lenientServer.port, { tls: true, ca, maxVersion: "TLSv1.2" })).protocol).toBe("TLSv1.2");
    } finally {
      await Promise.all([strictServer.close(), lenientServer.close()]);
    }
  });

  it("with client_ca_file and RequireAndVerifyClientCert admits only clients holding a certificate it signed", async () => {
    const config = tlsConfig("  client_ca_file: client.crt\n  client_auth_type: RequireAndVerifyClientCert\n");
    const { port, close } = await serve(config);
    const ca = read("server.crt");
    try {
      const admitted = await get(port, { tls: true, ca, cert: read("client.crt"), key: read("client.key") });
      expect(admitted.status).toBe(200);
      await expect(get(port, { tls: true, ca })).rejects.toMatchObject({ code: "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED" });
      // Node's server verifies after the handshake and drops an unverified client without an alert.
      const untrusted = { cert: read("other.crt"), key: read("other.key") };
      await expect(get(port, { tls: true, ca, ...untrusted })).rejects.toMatchObject({ code: "ECONNRESET" });
    } finally {
      await close();
    }
  });
});
