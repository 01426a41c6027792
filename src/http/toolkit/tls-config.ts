// tls_server_config as exporter-toolkit spells it (Go's crypto/tls names), and the Node TLS options it makes, naming a bad key.

import { X509Certificate } from "node:crypto";
import { createSecureContext, DEFAULT_CIPHERS, type SecureVersion, type TlsOptions } from "node:tls";
import { z } from "zod";
import { ConfigError } from "../../config/errors.js";
import { readText } from "../../config/secret.js";
import { libraryErrorText } from "../../util/error-text.js";

/** Oldest first: min_version and max_version are compared by index. */
const TLS_VERSIONS = ["TLS10", "TLS11", "TLS12", "TLS13"] as const;
const NODE_TLS_VERSION: Readonly<Record<(typeof TLS_VERSIONS)[number], SecureVersion>> = {
  TLS10: "TLSv1",
  TLS11: "TLSv1.1",
  TLS12: "TLSv1.2",
  TLS13: "TLSv1.3",
};

/** Every TLS 1.0-1.2 suite name Go has taken, with OpenSSL's name; null where Node's OpenSSL has none (3DES). */
const TLS12_SUITES: Readonly<Record<string, string | null>> = {
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: null,
  TLS_RSA_WITH_AES_128_CBC_SHA: "AES128-SHA",
  TLS_RSA_WITH_AES_256_CBC_SHA: "AES256-SHA",
  TLS_RSA_WITH_AES_128_GCM_SHA256: "AES128-GCM-SHA256",
  TLS_RSA_WITH_AES_256_GCM_SHA384: "AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: null,
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
};

/** Go takes these names but never lets them be configured: TLS 1.3 always offers all three. */
const TLS13_SUITES: ReadonlySet<string> = new Set(["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"]);

const CURVES: Readonly<Record<string, string>> = { CurveP256: "P-256", CurveP384: "P-384", CurveP521: "P-521", X25519: "X25519" };

const CLIENT_AUTH_TYPES = ["NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"] as const;

function cipherSuiteProblem(name: string): string | undefined {
  if (TLS13_SUITES.has(name)) return undefined;
  if (!Object.hasOwn(TLS12_SUITES, name)) return "unknown cipher suite (Go crypto/tls names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)";
  return TLS12_SUITES[name] === null ? "has no equivalent in Node's OpenSSL (3DES is not built in)" : undefined;
}

// An empty path would resolve to the config file's own directory; say so instead.
const filePath = z.string().refine((path) => path !== "", "must not be empty");
const tlsVersion = z.enum(TLS_VERSIONS);
// Go reads an inline PEM given as "" as not given.
const inlinePem = z.string().transform((text) => (text === "" ? undefined : text));

export type PemSource = { file: string } | { inline: string };

const pemSource = (inline: string | undefined, file: string | undefined): PemSource | undefined =>
  file !== undefined ? { file } : inline === undefined ? undefined : { inline };

const nonEmpty = (list: string[] | undefined): string[] | undefined => (list?.length ? list : undefined);

export const tlsServerConfig = z
  .strictObject({
    cert: inlinePem.optional(),
    key: inlinePem.optional(),
    client_ca: inlinePem.optional(),
    cert_file: filePath.optional(),
    key_file: filePath.optional(),
    // RequireClientCert: the toolkit's older name for RequireAnyClientCert, still taken.
    client_auth_type: z.enum([...CLIENT_AUTH_TYPES, "RequireClientCert"]).default("NoClientCert"),
    client_ca_file: filePath.optional(),
    client_allowed_sans: z.array(z.string()).optional(),
    min_version: tlsVersion.default("TLS12"),
    max_version: tlsVersion.default("TLS13"),
    cipher_suites: z.array(z.string()).optional(),
    prefer_server_cipher_suites: z.boolean().default(true),
    curve_preferences: z.array(z.string()).optional(),
  })
  .superRefine((tls, ctx) => {
    const report = (path: PropertyKey[], message: string): void => ctx.addIssue({ code: "custom", path, message });
    const shownName = (name: string): string => (/^[A-Za-z0-9_]{1,64}$/.test(name) ? `${name}: ` : "");
    for (const name of ["cert", "key", "client_ca"] as const) {
      const [inline, file] = [tls[name], tls[`${name}_file`]];
      if (inline !== undefined && file !== undefined) report([name], `give ${name} or ${name}_file, not both`);
      // "required" on the file key, so a misspelt cert_fle is reported in its place (config/problems.ts).
      else if (name !== "client_ca" && inline === undefined && file === undefined) report([`${name}_file`], `required (or ${name} with the PEM inline)`);
    }
    if (tls.client_auth_type === "NoClientCert") {
      const needsPolicy = "is set but client_auth_type is NoClientCert (the default), so no certificate is asked for: set RequireAndVerifyClientCert";
      for (const key of ["client_ca", "client_ca_file", "client_allowed_sans"] as const) if (tls[key] !== undefined) report([key], needsPolicy);
    }
    if (TLS_VERSIONS.indexOf(tls.min_version) > TLS_VERSIONS.indexOf(tls.max_version))
      report(["min_version"], `${tls.min_version} is above max_version ${tls.max_version}`);
    const suites = tls.cipher_suites ?? [];
    suites.forEach((name, i) => {
      const problem = cipherSuiteProblem(name);
      if (problem !== undefined) report(["cipher_suites", i], `${shownName(name)}${problem}`);
    });
    if (suites.length > 0 && suites.every((name) => TLS13_SUITES.has(name)))
      report(["cipher_suites"], "lists only TLS 1.3 suites, which are not configurable (as in Go): list TLS 1.0-1.2 ones or leave the key out");
    (tls.curve_preferences ?? []).forEach((name, i) => {
      if (!Object.hasOwn(CURVES, name)) report(["curve_preferences", i], `${shownName(name)}unknown curve (one of ${Object.keys(CURVES).join(", ")})`);
    });
  })
  .transform((tls) => ({
    cert: pemSource(tls.cert, tls.cert_file)!,
    key: pemSource(tls.key, tls.key_file)!,
    clientCa: pemSource(tls.client_ca, tls.client_ca_file),
    clientAuthType: tls.client_auth_type === "RequireClientCert" ? "RequireAnyClientCert" : tls.client_auth_type,
    clientAllowedSans: tls.client_allowed_sans,
    minVersion: tls.min_version,
    maxVersion: tls.max_version,
    cipherSuites: nonEmpty(tls.cipher_suites),
    preferServerCipherSuites: tls.prefer_server_cipher_suites,
    curvePreferences: nonEmpty(tls.curve_preferences),
  }));

export type TlsServerConfig = z.output<typeof tlsServerConfig>;

const keyOf = (name: string, source: PemSource): string => ("file" in source ? `${name}_file` : name);

function check(key: string, what: string, build: () => unknown): void {
  try {
    build();
  } catch (error) {
    throw new ConfigError(`web config: tls_server_config.${key}: ${libraryErrorText(error, what)}`);
  }
}

function readPem(name: string, source: PemSource): Buffer {
  return Buffer.from("inline" in source ? source.inline : readText(source.file, `web config: tls_server_config.${keyOf(name, source)}`));
}

export function readTlsPems(tls: TlsServerConfig) {
  return { cert: readPem("cert", tls.cert), key: readPem("key", tls.key), clientCa: tls.clientCa && readPem("client_ca", tls.clientCa) };
}

export type TlsPems = ReturnType<typeof readTlsPems>;

/** Node TLS options for these PEMs. Throws a ConfigError naming the key if OpenSSL refuses one. */
export function tlsOptionsFrom(tls: TlsServerConfig, pems: TlsPems): TlsOptions {
  const { cert, key, clientCa } = pems;
  const [certKey, keyKey] = [keyOf("cert", tls.cert), keyOf("key", tls.key)];
  check(certKey, "not a PEM certificate", () => createSecureContext({ cert }));
  check(keyKey, "not a PEM private key without a passphrase", () => createSecureContext({ key }));
  check(keyKey, `does not match ${certKey}`, () => createSecureContext({ cert, key }));
  // Node takes a CA file without any certificate silently and would then refuse every client.
  if (clientCa !== undefined && tls.clientCa !== undefined)
    check(keyOf("client_ca", tls.clientCa), "not a PEM certificate", () => new X509Certificate(clientCa));
  const list = tls.cipherSuites?.flatMap((name) => TLS12_SUITES[name] ?? []).join(":");
  // OpenSSL 3 refuses TLS 1.0/1.1 (SHA-1 handshakes) above level 0, so it is lowered only when the config asks for them.
  const ciphers = tls.minVersion === "TLS10" || tls.minVersion === "TLS11" ? `${list ?? DEFAULT_CIPHERS}:@SECLEVEL=0` : list;
  if (ciphers !== undefined) check("cipher_suites", "refused by OpenSSL", () => createSecureContext({ ciphers }));
  const ecdhCurve = tls.curvePreferences?.map((name) => CURVES[name]).join(":");
  if (ecdhCurve !== undefined) check("curve_preferences", "refused by OpenSSL", () => createSecureContext({ ecdhCurve }));
  return {
    cert,
    key,
    minVersion: NODE_TLS_VERSION[tls.minVersion],
    maxVersion: NODE_TLS_VERSION[tls.maxVersion],
    honorCipherOrder: tls.preferServerCipherSuites,
    // Go's policies that Node has no switch for are finished after the handshake (tls-serving.ts).
    requestCert: tls.clientAuthType !== "NoClientCert",
    rejectUnauthorized: tls.clientAuthType === "RequireAndVerifyClientCert",
    ca: clientCa,
    ciphers,
    ecdhCurve,
  };
}
