// exporter-toolkit's TLS names (Go's crypto/tls) and what Node's OpenSSL calls the same thing.

import type { SecureVersion } from "node:tls";

/** Oldest first: min_version and max_version are compared by index. */
export const TLS_VERSIONS = ["TLS10", "TLS11", "TLS12", "TLS13"] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

export const NODE_TLS_VERSION: Readonly<Record<TlsVersion, SecureVersion>> = { TLS10: "TLSv1", TLS11: "TLSv1.1", TLS12: "TLSv1.2", TLS13: "TLSv1.3" };

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

export function cipherSuiteProblem(name: string): string | undefined {
  if (TLS13_SUITES.has(name)) return undefined;
  if (!Object.hasOwn(TLS12_SUITES, name)) return "unknown cipher suite (Go crypto/tls names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)";
  if (TLS12_SUITES[name] === null) return "has no equivalent in Node's OpenSSL (3DES is not built in)";
  return undefined;
}

export const isTls13Suite = (name: string): boolean => TLS13_SUITES.has(name);

export function openSslCipherList(names: readonly string[]): string[] {
  return names.flatMap((name) => TLS12_SUITES[name] ?? []);
}

export function curveProblem(name: string): string | undefined {
  return Object.hasOwn(CURVES, name) ? undefined : `unknown curve (one of ${Object.keys(CURVES).join(", ")})`;
}

export function ecdhCurveOption(names: readonly string[]): string {
  return names.map((name) => CURVES[name]).join(":");
}
