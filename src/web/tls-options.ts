// Reads the TLS files a web config names and checks they make a usable server context, naming the bad key.

import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext, type TlsOptions } from "node:tls";
import { ConfigError } from "../config/errors.js";
import { libraryErrorText } from "../util/error-text.js";
import type { WebConfig } from "./types.js";

const NODE_VERSION = { TLS12: "TLSv1.2", TLS13: "TLSv1.3" } as const;

function problem(key: string, text: string): ConfigError {
  return new ConfigError(`web config: tls_server_config.${key}: ${text}`);
}

function readPem(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    // The code only (libraryErrorText): a failed parse's message could quote the file's content.
    throw problem(key, libraryErrorText(error, "cannot read the file"));
  }
}

function check(key: string, what: string, build: () => unknown): void {
  try {
    build();
  } catch (error) {
    throw problem(key, libraryErrorText(error, what));
  }
}

/** Node TLS options for the web config, or undefined for plain HTTP. Reads the files on every call. */
export function tlsServerOptions(config: WebConfig): TlsOptions | undefined {
  const tls = config.tls;
  if (tls === undefined) return undefined;
  const cert = readPem("cert_file", tls.certFile);
  const key = readPem("key_file", tls.keyFile);
  // One piece at a time, so the message names the file that is wrong.
  check("cert_file", "not a PEM certificate", () => createSecureContext({ cert }));
  check("key_file", "not a PEM private key without a passphrase", () => createSecureContext({ key }));
  check("key_file", "does not match cert_file", () => createSecureContext({ cert, key }));
  const options: TlsOptions = { cert, key, minVersion: NODE_VERSION[tls.minVersion] };
  if (tls.clientCaFile === undefined) return options;
  const ca = readPem("client_ca_file", tls.clientCaFile);
  // Node takes a CA file without any certificate silently and would then refuse every client.
  check("client_ca_file", "not a PEM certificate", () => new X509Certificate(ca));
  return { ...options, ca, requestCert: true, rejectUnauthorized: true };
}
