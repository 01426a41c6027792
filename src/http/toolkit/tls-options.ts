// Reads the PEMs a tls_server_config names and turns the config into Node TLS options, naming the bad key.

import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext, DEFAULT_CIPHERS, type TlsOptions } from "node:tls";
import { ConfigError } from "../../config/errors.js";
import { fileErrorText, libraryErrorText } from "../../util/error-text.js";
import { ecdhCurveOption, NODE_TLS_VERSION, openSslCipherList } from "./tls-names.js";
import type { PemSource, TlsServerConfig } from "./web-config-schema.js";

export interface TlsPems {
  cert: Buffer;
  key: Buffer;
  clientCa?: Buffer;
}

function problem(key: string, text: string): ConfigError {
  return new ConfigError(`web config: tls_server_config.${key}: ${text}`);
}

const keyOf = (name: string, source: PemSource): string => ("file" in source ? `${name}_file` : name);

function readPem(name: string, source: PemSource): Buffer {
  if ("inline" in source) return Buffer.from(source.inline);
  try {
    return readFileSync(source.file);
  } catch (error) {
    // The path and the code only: a failed read's message is the library's.
    throw problem(keyOf(name, source), fileErrorText(error, source.file));
  }
}

export function readTlsPems(tls: TlsServerConfig): TlsPems {
  const pems: TlsPems = { cert: readPem("cert", tls.cert), key: readPem("key", tls.key) };
  return tls.clientCa === undefined ? pems : { ...pems, clientCa: readPem("client_ca", tls.clientCa) };
}

function check(key: string, what: string, build: () => unknown): void {
  try {
    build();
  } catch (error) {
    throw problem(key, libraryErrorText(error, what));
  }
}

function ciphersOption(tls: TlsServerConfig): string | undefined {
  const list = tls.cipherSuites === undefined ? undefined : openSslCipherList(tls.cipherSuites).join(":");
  const legacy = tls.minVersion === "TLS10" || tls.minVersion === "TLS11";
  // OpenSSL 3 refuses TLS 1.0/1.1 (SHA-1 handshakes) above level 0, so it is lowered only when the config asks for them.
  return legacy ? `${list ?? DEFAULT_CIPHERS}:@SECLEVEL=0` : list;
}

/** Node TLS options for these PEMs. Throws a ConfigError naming the key if OpenSSL refuses one. */
export function tlsOptionsFrom(tls: TlsServerConfig, pems: TlsPems): TlsOptions {
  const { cert, key, clientCa } = pems;
  const [certKey, keyKey] = [keyOf("cert", tls.cert), keyOf("key", tls.key)];
  check(certKey, "not a PEM certificate", () => createSecureContext({ cert }));
  check(keyKey, "not a PEM private key without a passphrase", () => createSecureContext({ key }));
  check(keyKey, `does not match ${certKey}`, () => createSecureContext({ cert, key }));
  // Node takes a CA file without any certificate silently and would then refuse every client.
  if (clientCa !== undefined && tls.clientCa !== undefined) {
    check(keyOf("client_ca", tls.clientCa), "not a PEM certificate", () => new X509Certificate(clientCa));
  }
  const ciphers = ciphersOption(tls);
  if (ciphers !== undefined) check("cipher_suites", "refused by OpenSSL", () => createSecureContext({ ciphers }));
  const ecdhCurve = tls.curvePreferences === undefined ? undefined : ecdhCurveOption(tls.curvePreferences);
  if (ecdhCurve !== undefined) check("curve_preferences", "refused by OpenSSL", () => createSecureContext({ ecdhCurve }));
  return {
    cert,
    key,
    minVersion: NODE_TLS_VERSION[tls.minVersion],
    maxVersion: NODE_TLS_VERSION[tls.maxVersion],
    honorCipherOrder: tls.preferServerCipherSuites,
    // Go's policies that Node has no switch for are finished after the handshake by clientCertRefusal.
    requestCert: tls.clientAuthType !== "NoClientCert",
    rejectUnauthorized: tls.clientAuthType === "RequireAndVerifyClientCert",
    ca: clientCa,
    ciphers,
    ecdhCurve,
  };
}
