// Reads and validates the --web.config.file (exporter-toolkit's format): TLS, basic auth users, extra headers.

import { dirname, resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import { FROM_FILE, Problems } from "../config/problems.js";
import { parseYaml, readText } from "../config/yaml.js";
import { addZodIssues, documentOrder } from "../config/zod-issues.js";
import { tlsServerOptions } from "./tls-options.js";
import type { PemSource, TlsServerConfig, WebConfig } from "./types.js";
import { webConfigSchema, type WebConfigFile } from "./web-config-schema.js";

/** Inline text or a file path resolved against the web config's folder, as the toolkit's SetDirectory does. */
function pemSource(inline: string | undefined, file: string | undefined, baseDir: string): PemSource | undefined {
  if (file !== undefined) return { file: resolve(baseDir, file) };
  return inline === undefined ? undefined : { inline };
}

function toTlsConfig(file: NonNullable<WebConfigFile["tls_server_config"]>, baseDir: string): TlsServerConfig {
  // An empty list means Go's default, as an absent one does.
  const nonEmpty = (list: string[] | undefined) => (list?.length ? list : undefined);
  return {
    // The schema refused a config without a cert or a key.
    cert: pemSource(file.cert, file.cert_file, baseDir)!,
    key: pemSource(file.key, file.key_file, baseDir)!,
    clientCa: pemSource(file.client_ca, file.client_ca_file, baseDir),
    clientAuthType: file.client_auth_type === "RequireClientCert" ? "RequireAnyClientCert" : file.client_auth_type,
    clientAllowedSans: file.client_allowed_sans,
    minVersion: file.min_version,
    maxVersion: file.max_version,
    cipherSuites: nonEmpty(file.cipher_suites),
    preferServerCipherSuites: file.prefer_server_cipher_suites,
    curvePreferences: nonEmpty(file.curve_preferences),
  };
}

function toWebConfig(file: WebConfigFile, baseDir: string): WebConfig {
  const http = file.http_server_config;
  // The toolkit turns the limiter off with a zero interval; a zero burst there would refuse every
  // request, which no one means, so it turns the limiter off here too.
  const { interval: intervalMs = 0, burst = 0 } = file.rate_limit ?? {};
  return {
    tls: file.tls_server_config === undefined ? undefined : toTlsConfig(file.tls_server_config, baseDir),
    basicAuthUsers: { ...file.basic_auth_users },
    headers: { ...http?.headers },
    ...(http?.http2 === undefined ? {} : { http2: http.http2 }),
    ...(intervalMs > 0 && burst > 0 ? { rateLimit: { intervalMs, burst } } : {}),
  };
}

/**
 * Parses web config YAML. `source` is the file's path: relative cert/key/CA paths resolve against its
 * directory. The TLS files are read now, so a missing or unusable one stops start-up with its key named.
 */
export function parseWebConfig(text: string, source: string): WebConfig {
  // An empty file (or one of comments only) turns nothing on, as in exporter-toolkit.
  const data = parseYaml(text, "web config", false) ?? {};
  const parsed = webConfigSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    // Every problem at once, in file order, an unknown key with the key probably meant.
    const problems = new Problems();
    addZodIssues(parsed.error, problems, { schema: webConfigSchema, data, at: [], label: "web config: ", order: documentOrder(data), source: FROM_FILE });
    problems.throwIfAny();
    throw new ConfigError("web config: invalid");
  }
  const config = toWebConfig(parsed.data, dirname(resolve(source)));
  // The TLS files are read and checked now, so a bad one stops start-up (or --config.check) with its key named.
  tlsServerOptions(config);
  return config;
}

export function loadWebConfig(path: string): WebConfig {
  return parseWebConfig(readText(path, "web config"), path);
}
