// tls_server_config key by key against real TLS clients: client certificate policies, the SAN allow-list,
// versions, suites, curves, inline PEMs, the files re-read when they change, and a node_exporter file unchanged.

import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request, type RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import express from "express";
import type { Logger } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/errors.js";
import { listen } from "./helpers/listen.js";
import type { TlsServerConfig } from "../src/http/toolkit/tls-config.js";
import { subjectAltNames, tlsServing } from "../src/http/toolkit/tls-serving.js";
import { loadWebConfig, parseWebConfig } from "../src/http/toolkit/web-config.js";

let dir = "";
const pem = (file: string): string => join(dir, file);
const read = (file: string): string => readFileSync(pem(file), "utf8");

/** Runs openssl; the tests need it, so its absence fails them with a message instead of skipping. */
function openssl(args: string[]): void {
  try {
    execFileSync("openssl", args, { stdio: "pipe" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error("openssl is required to make the test certificates but was not found on PATH");
    throw error;
  }
}

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"];

/** A certificate and key; signed by `ca` if given, else self-signed. RSA for the server, so ECDHE-RSA suites apply. */
function certificate(name: string, options: { cn?: string; san?: string; ca?: string; rsa?: boolean; isCa?: boolean } = {}): void {
  const { cn = name, san, ca, rsa = false, isCa = false } = options;
  const args = ["req", "-x509", ...(rsa ? ["-newkey", "rsa:2048"] : EC), "-nodes", "-subj", `/CN=${cn}`, "-days", "1"];
  if (san !== undefined) args.push("-addext", `subjectAltName=${san}`);
  if (isCa) args.push("-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign");
  else args.push("-addext", "basicConstraints=critical,CA:FALSE");
  if (ca !== undefined) args.push("-CA", pem(`${ca}.crt`), "-CAkey", pem(`${ca}.key`));
  openssl([...args, "-keyout", pem(`${name}.key`), "-out", pem(`${name}.crt`)]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "web-tls-test-"));
  certificate("server", { cn: "127.0.0.1", san: "IP:127.0.0.1", rsa: true });
  certificate("server2", { cn: "127.0.0.1", san: "IP:127.0.0.1", rsa: true });
  certificate("ca", { isCa: true });
  certificate("ca2", { isCa: true });
  certificate("alice", { san: "DNS:alice.example,URI:spiffe://td/alice", ca: "ca" });
  certificate("bob", { san: "DNS:bob.example,email:bob@example.org", ca: "ca" });
  certificate("v6", { san: "IP:::1", ca: "ca" });
  certificate("carol", { san: "DNS:carol.example", ca: "ca2" });
  // Claims alice's SANs but nobody signed it.
  certificate("mallory", { san: "DNS:alice.example,URI:spiffe://td/alice" });
  writeFileSync(pem("garbage.crt"), "not a certificate\n");
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

const TLS_OK = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

function tlsConfig(extra = "", base = TLS_OK): TlsServerConfig {
  const tls = parseWebConfig(`${base}${extra}`, pem("web.yml")).tls;
  if (tls === undefined) throw new Error("no tls_server_config");
  return tls;
}

function configError(text: string): string {
  try {
    parseWebConfig(text, pem("web.yml"));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the config was accepted");
}

interface LogLine {
  level: string;
  fields: unknown;
  message: string;
}

/** The few logger methods tls-serving uses, kept in a list. */
function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (fields: unknown, message?: string): void => {
      lines.push(typeof fields === "string" ? { level, fields: {}, message: fields } : { level, fields, message: message ?? "" });
    };
  return { logger: { info: at("info"), warn: at("warn"), debug: at("debug") } as unknown as Logger, lines };
}

/** The exporter's own server (http/server.ts) serving /metrics over TLS with this config, as main.ts wires it. */
async function serve(tls: TlsServerConfig, reloadCheckMs?: number) {
  const { logger, lines } = recordingLogger();
  const serving = tlsServing(tls, logger, reloadCheckMs === undefined ? {} : { reloadCheckMs });
  const app = express();
  app.get("/metrics", (_req, res) => void res.type("text/plain").send("up 1\n"));
  const running = await listen(app, "127.0.0.1", 0, { tls: serving.options, onTlsServer: serving.attach });
  return { port: Number(new URL(running.url).port), lines, close: () => running.close(0) };
}

interface Reply {
  status: number;
  protocol: string | null;
  cipher: string;
  /** The fingerprint of the certificate the server showed. */
  served: string;
}

function get(port: number, options: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/metrics", agent: false, ca: read("server.crt"), ...options }, (res) => {
      const socket = res.socket as TLSSocket;
      const reply = {
        status: res.statusCode ?? 0,
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().name,
        served: socket.getPeerCertificate().fingerprint256,
      };
      res.resume();
      res.on("error", reject);
      res.on("end", () => resolve(reply));
    });
    req.on("error", reject);
    req.end();
  });
}

const as = (name: string): RequestOptions => ({ cert: read(`${name}.crt`), key: read(`${name}.key`) });

/**
 * How a refused client sees it: Node's own refusal sends an alert (TLS 1.3: certificate required; TLS 1.2:
 * a handshake failure, EPROTO), the check after the handshake closes the connection (ECONNRESET).
 */
const REFUSED = { code: expect.stringMatching(/^(ECONNRESET|EPROTO|ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED)$/) };

async function outcome(port: number, options: RequestOptions): Promise<"served" | "refused"> {
  try {
    expect((await get(port, options)).status).toBe(200);
    return "served";
  } catch (error) {
    expect(error).toMatchObject(REFUSED);
    return "refused";
  }
}

describe("client_auth_type", () => {
  // No certificate, one the CA signed, one nobody signed: what Go's five policies do with each.
  const table: Array<[string, string, "served" | "refused", "served" | "refused", "served" | "refused"]> = [
    ["NoClientCert", "", "served", "served", "served"],
    ["RequestClientCert", "  client_ca_file: ca.crt\n", "served", "served", "served"],
    ["RequireAnyClientCert", "  client_ca_file: ca.crt\n", "refused", "served", "served"],
    ["RequireClientCert", "  client_ca_file: ca.crt\n", "refused", "served", "served"],
    ["VerifyClientCertIfGiven", "  client_ca_file: ca.crt\n", "served", "served", "refused"],
    ["RequireAndVerifyClientCert", "  client_ca_file: ca.crt\n", "refused", "served", "refused"],
  ];

  it.each(table)("%s treats no certificate, a signed one and one nobody signed as Go does", async (type, ca, none, signed, unsigned) => {
    const { port, close } = await serve(tlsConfig(`  client_auth_type: ${type}\n${ca}`));
    try {
      for (const maxVersion of ["TLSv1.3", "TLSv1.2"] as const) {
        expect([maxVersion, await outcome(port, { maxVersion })]).toEqual([maxVersion, none]);
        expect([maxVersion, await outcome(port, { maxVersion, ...as("alice") })]).toEqual([maxVersion, signed]);
        expect([maxVersion, await outcome(port, { maxVersion, ...as("mallory") })]).toEqual([maxVersion, unsigned]);
      }
    } finally {
      await close();
    }
  });

  it("defaults to NoClientCert and reads RequireClientCert as RequireAnyClientCert, as the toolkit does", () => {
    expect(tlsConfig().clientAuthType).toBe("NoClientCert");
    expect(tlsConfig("  client_auth_type: RequireClientCert\n").clientAuthType).toBe("RequireAnyClientCert");
  });

  it("refuses a client CA or SAN list that NoClientCert would never check, as the toolkit refuses the CA", () => {
    const unchecked = "is set but client_auth_type is NoClientCert (the default), so no certificate is asked for: set RequireAndVerifyClientCert";
    expect(configError(`${TLS_OK}  client_ca_file: ca.crt\n`)).toBe(`web config: tls_server_config.client_ca_file: ${unchecked}`);
    expect(configError(`${TLS_OK}  client_allowed_sans: [a.example]\n`)).toBe(`web config: tls_server_config.client_allowed_sans: ${unchecked}`);
    expect(configError(`${TLS_OK}  client_auth_type: VerifyAll\n`)).toBe(
      'web config: tls_server_config.client_auth_type: expected one of "NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert", "RequireClientCert"',
    );
  });
});

describe("client_allowed_sans", () => {
  it("admits a verified client whose certificate carries one of them, and closes the connection of one that does not", async () => {
    const sans = "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [spiffe://td/alice, '::1']\n";
    const { port, lines, close } = await serve(tlsConfig(sans));
    try {
      expect(await outcome(port, as("alice"))).toBe("served");
      // Node spells the certificate's address 0:0:0:0:0:0:0:1: the same address, as in Go.
      expect(await outcome(port, as("v6"))).toBe("served");
      expect(await outcome(port, as("bob"))).toBe("refused");
      expect(await outcome(port, { maxVersion: "TLSv1.2", ...as("bob") })).toBe("refused");
      expect(await outcome(port, as("mallory"))).toBe("refused");
      expect(lines.filter((l) => l.level === "debug").map((l) => l.fields)).toContainEqual({ reason: "san" });
    } finally {
      await close();
    }
  });

  it("matches DNS names, e-mail addresses and URIs exactly, as Go compares them", async () => {
    const sans = "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans: [bob@example.org]\n";
    const { port, close } = await serve(tlsConfig(sans));
    try {
      expect(await outcome(port, as("bob"))).toBe("served");
      expect(await outcome(port, as("alice"))).toBe("refused");
    } finally {
      await close();
    }
  });

  it("reads Node's SAN text, quoted values included", () => {
    const text = 'DNS:a.example, IP Address:0:0:0:0:0:0:0:1, email:me@x.org, URI:spiffe://td/a, URI:"http://h/a\\u002cb", DirName:"CN=x,O=y"';
    expect(subjectAltNames(text)).toEqual(["a.example", "::1", "me@x.org", "spiffe://td/a", "http://h/a,b"]);
    expect(subjectAltNames(new X509Certificate(read("alice.crt")).subjectAltName)).toEqual(["alice.example", "spiffe://td/alice"]);
    expect(subjectAltNames(undefined)).toEqual([]);
  });
});

describe("min_version and max_version", () => {
  it("with max_version TLS12 refuses a client that speaks only TLS 1.3 and serves others TLS 1.2", async () => {
    const capped = await serve(tlsConfig("  max_version: TLS12\n"));
    const open = await serve(tlsConfig());
    try {
      await expect(get(capped.port, { minVersion: "TLSv1.3" })).rejects.toThrow(/protocol version/i);
      expect((await get(capped.port)).protocol).toBe("TLSv1.2");
      // The same client is served by the default (TLS13) server: the refusal is max_version's doing.
      expect((await get(open.port, { minVersion: "TLSv1.3" })).protocol).toBe("TLSv1.3");
    } finally {
      await Promise.all([capped.close(), open.close()]);
    }
  });

  it("with min_version TLS10 serves a TLS 1.0 client, which the default refuses", async () => {
    // The client too must lower OpenSSL's security level to offer TLS 1.0 at all.
    const tls10 = { minVersion: "TLSv1", maxVersion: "TLSv1", ciphers: "DEFAULT:@SECLEVEL=0" } as const;
    const legacy = await serve(tlsConfig("  min_version: TLS10\n"));
    const open = await serve(tlsConfig());
    try {
      expect((await get(legacy.port, tls10)).protocol).toBe("TLSv1");
      expect((await get(legacy.port)).protocol).toBe("TLSv1.3");
      await expect(get(open.port, tls10)).rejects.toThrow(/protocol version/i);
    } finally {
      await Promise.all([legacy.close(), open.close()]);
    }
  });

  it("refuses versions the wrong way round, and names outside the toolkit's", () => {
    expect(configError(`${TLS_OK}  min_version: TLS13\n  max_version: TLS12\n`)).toBe(
      "web config: tls_server_config.min_version: TLS13 is above max_version TLS12",
    );
    expect(configError(`${TLS_OK}  max_version: TLS14\n`)).toBe(
      'web config: tls_server_config.max_version: expected one of "TLS10", "TLS11", "TLS12", "TLS13"',
    );
  });
});

describe("cipher_suites and prefer_server_cipher_suites", () => {
  const AES128 = "ECDHE-RSA-AES128-GCM-SHA256";
  const AES256 = "ECDHE-RSA-AES256-GCM-SHA384";
  const tls12 = (ciphers: string): RequestOptions => ({ maxVersion: "TLSv1.2", ciphers });

  it("offers only the listed TLS 1.2 suites, and TLS 1.3 as Go does whatever the list", async () => {
    const { port, close } = await serve(tlsConfig("  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]\n"));
    try {
      await expect(get(port, tls12(AES256))).rejects.toThrow(/handshake failure/i);
      expect((await get(port, tls12(`${AES256}:${AES128}`))).cipher).toBe(AES128);
      expect((await get(port)).protocol).toBe("TLSv1.3");
    } finally {
      await close();
    }
  });

  it("picks by the server's order by default, by the client's with prefer_server_cipher_suites false", async () => {
    const suites = "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]\n";
    const server = await serve(tlsConfig(suites));
    const client = await serve(tlsConfig(`${suites}  prefer_server_cipher_suites: false\n`));
    try {
      expect((await get(server.port, tls12(`${AES256}:${AES128}`))).cipher).toBe(AES128);
      expect((await get(client.port, tls12(`${AES256}:${AES128}`))).cipher).toBe(AES256);
    } finally {
      await Promise.all([server.close(), client.close()]);
    }
  });

  it("names a suite it does not know, one Node's OpenSSL lacks, and a list TLS 1.3 alone cannot honour", () => {
    expect(configError(`${TLS_OK}  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ECDHE-RSA-AES128-GCM-SHA256]\n`)).toBe(
      "web config: tls_server_config.cipher_suites[1]: unknown cipher suite (Go crypto/tls names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)",
    );
    expect(configError(`${TLS_OK}  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n`)).toBe(
      "web config: tls_server_config.cipher_suites[0]: TLS_RSA_WITH_RC4_128_SHA: unknown cipher suite (Go crypto/tls names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)",
    );
    expect(configError(`${TLS_OK}  cipher_suites: [TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA]\n`)).toBe(
      "web config: tls_server_config.cipher_suites[0]: TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: has no equivalent in Node's OpenSSL (3DES is not built in)",
    );
    expect(configError(`${TLS_OK}  cipher_suites: [TLS_AES_128_GCM_SHA256]\n`)).toBe(
      "web config: tls_server_config.cipher_suites: lists only TLS 1.3 suites, which are not configurable (as in Go): list TLS 1.0-1.2 ones or leave the key out",
    );
  });
});

describe("curve_preferences", () => {
  it("offers only the listed curves", async () => {
    const { port, close } = await serve(tlsConfig("  curve_preferences: [CurveP384, CurveP521]\n"));
    try {
      await expect(get(port, { ecdhCurve: "X25519" })).rejects.toThrow(/handshake failure/i);
      expect((await get(port, { ecdhCurve: "X25519:P-521" })).status).toBe(200);
      expect((await get(port, { ecdhCurve: "P-384", maxVersion: "TLSv1.2" })).status).toBe(200);
    } finally {
      await close();
    }
  });

  it("names a curve the toolkit does not know", () => {
    expect(configError(`${TLS_OK}  curve_preferences: [X25519, secp256k1]\n`)).toBe(
      "web config: tls_server_config.curve_preferences[1]: secp256k1: unknown curve (one of CurveP256, CurveP384, CurveP521, X25519)",
    );
  });
});

describe("cert, key and client_ca inline", () => {
  const indent = (text: string): string => text.trimEnd().replaceAll("\n", "\n    ");

  it("serves from PEMs written into the web config", async () => {
    const inline = [
      "tls_server_config:",
      `  cert: |\n    ${indent(read("server.crt"))}`,
      `  key: |\n    ${indent(read("server.key"))}`,
      `  client_ca: |\n    ${indent(read("ca.crt"))}`,
      "  client_auth_type: RequireAndVerifyClientCert",
      "",
    ].join("\n");
    const tls = tlsConfig("", inline);
    expect(tls.cert).toEqual({ inline: read("server.crt") });
    const { port, close } = await serve(tls);
    try {
      expect(await outcome(port, as("alice"))).toBe("served");
      expect(await outcome(port, as("mallory"))).toBe("refused");
    } finally {
      await close();
    }
  });

  it("names the key of a bad inline PEM without quoting it, and refuses a PEM given both ways", () => {
    const message = configError(`tls_server_config:\n  cert_file: server.crt\n  key: "-----BEGIN PRIVATE KEY-----\\nc2VjcmV0LWtleS1tYXRlcmlhbA==\\n"\n`);
    expect(message).toMatch(/^web config: tls_server_config\.key: not a PEM private key without a passphrase \([A-Z0-9_]+\)$/);
    expect(configError(`${TLS_OK}  cert: "${read("server.crt").replaceAll("\n", "\\n")}"\n`)).toBe(
      "web config: tls_server_config.cert: give cert or cert_file, not both",
    );
    expect(configError("tls_server_config:\n  cert_file: server.crt\n")).toBe("web config: tls_server_config.key_file: required (or key with the PEM inline)");
  });
});

/** Connects until the served certificate is `wanted`'s, or gives up after `limitMs`. */
async function servedEventually(port: number, wanted: string, limitMs = 10_000): Promise<string> {
  const fingerprint = new X509Certificate(read(wanted)).fingerprint256;
  const deadline = Date.now() + limitMs;
  let served = "";
  while (Date.now() < deadline) {
    served = (await get(port, { rejectUnauthorized: false })).served;
    if (served === fingerprint) return served;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return served;
}

const fingerprintOf = (file: string): string => new X509Certificate(read(file)).fingerprint256;

describe("certificate files re-read when they change", () => {
  it("serves a replaced certificate without a restart, and keeps the old one when the new files are bad, saying so once", async () => {
    copyFileSync(pem("server.crt"), pem("live.crt"));
    copyFileSync(pem("server.key"), pem("live.key"));
    const { port, lines, close } = await serve(tlsConfig("", "tls_server_config:\n  cert_file: live.crt\n  key_file: live.key\n"), 50);
    try {
      expect((await get(port, { rejectUnauthorized: false })).served).toBe(fingerprintOf("server.crt"));
      copyFileSync(pem("server2.crt"), pem("live.crt"));
      copyFileSync(pem("server2.key"), pem("live.key"));
      expect(await servedEventually(port, "server2.crt")).toBe(fingerprintOf("server2.crt"));
      expect(lines.filter((l) => l.level === "info").map((l) => l.message)).toEqual(["TLS certificate files changed: new connections use them"]);

      // A certificate whose key has not arrived yet: the old pair keeps serving, and one line says why.
      copyFileSync(pem("server.crt"), pem("live.crt"));
      const deadline = Date.now() + 10_000;
      while (!lines.some((l) => l.level === "warn") && Date.now() < deadline) {
        expect((await get(port, { rejectUnauthorized: false })).served).toBe(fingerprintOf("server2.crt"));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (let i = 0; i < 5; i++) expect((await get(port, { rejectUnauthorized: false })).served).toBe(fingerprintOf("server2.crt"));
      const warnings = lines.filter((l) => l.level === "warn");
      expect(warnings).toEqual([
        {
          level: "warn",
          fields: { error: expect.stringMatching(/^web config: tls_server_config\.key_file: does not match cert_file \(ERR_OSSL_[A-Z0-9_]+\)$/) },
          message: "TLS certificate files changed but cannot be used; the old ones keep serving",
        },
      ]);
      // The key arrives: the pair is used.
      copyFileSync(pem("server.key"), pem("live.key"));
      expect(await servedEventually(port, "server.crt")).toBe(fingerprintOf("server.crt"));
    } finally {
      await close();
    }
  });

  it("re-reads client_ca_file: clients of the new CA are admitted, those of the old one refused", async () => {
    copyFileSync(pem("ca.crt"), pem("live-ca.crt"));
    const { port, close } = await serve(tlsConfig("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: live-ca.crt\n"), 50);
    try {
      expect(await outcome(port, as("alice"))).toBe("served");
      expect(await outcome(port, as("carol"))).toBe("refused");
      copyFileSync(pem("ca2.crt"), pem("live-ca.crt"));
      const deadline = Date.now() + 10_000;
      while ((await outcome(port, as("carol"))) === "refused" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await outcome(port, as("carol"))).toBe("served");
      expect(await outcome(port, as("alice"))).toBe("refused");
    } finally {
      await close();
    }
  });
});

describe("a node_exporter web config using every tls_server_config key", () => {
  it("loads unchanged and serves", async () => {
    const fixture = readFileSync(new URL("fixtures/web-config-node-exporter.yml", import.meta.url), "utf8");
    for (const file of ["server.crt", "server.key", "ca.crt"]) copyFileSync(pem(file), join(dir, `ne-${file}`));
    writeFileSync(pem("node-exporter.yml"), fixture);
    const config = loadWebConfig(pem("node-exporter.yml"));
    const tls = config.tls;
    expect(tls).toMatchObject({
      cert: { file: pem("ne-server.crt") },
      clientCa: { file: pem("ne-ca.crt") },
      clientAuthType: "RequireAndVerifyClientCert",
      clientAllowedSans: ["alice.example", "spiffe://td/alice"],
      minVersion: "TLS12",
      maxVersion: "TLS13",
      preferServerCipherSuites: true,
      curvePreferences: ["X25519", "CurveP256", "CurveP384", "CurveP521"],
    });
    if (tls === undefined) return;
    const { port, close } = await serve(tls);
    try {
      expect(await outcome(port, as("alice"))).toBe("served");
      expect(await outcome(port, { maxVersion: "TLSv1.2", ...as("alice") })).toBe("served");
      expect(await outcome(port, as("bob"))).toBe("refused");
    } finally {
      await close();
    }
  });
});
