// Reads and validates the --web.config.file (exporter-toolkit's format): TLS, basic auth users, extra headers.

import { dirname, resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import { FROM_FILE, Problems } from "../config/problems.js";
import { parseYaml, readText } from "../config/yaml.js";
import { addZodIssues, documentOrder } from "../config/zod-issues.js";
import { tlsServerOptions } from "./tls-options.js";
import type { WebConfig } from "./types.js";
import { type PemSource, webConfigSchema, type WebConfigFile } from "./web-config-schema.js";

/** A PEM file path resolved against the web config's folder, as the toolkit's SetDirectory does. */
function resolved(source: PemSource, baseDir: string): PemSource {
  return "file" in source ? { file: resolve(baseDir, source.file) } : source;
}

function toWebConfig(file: WebConfigFile, baseDir: string): WebConfig {
  const { tls_server_config: tls, http_server_config: http } = file;
  // The toolkit turns the limiter off with a zero interval; a zero burst there would refuse every
  // request, which no one means, so it turns the limiter off here too.
  const { interval: intervalMs = 0, burst = 0 } = file.rate_limit ?? {};
  return {
    tls: tls && { ...tls, cert: resolved(tls.cert, baseDir), key: resolved(tls.key, baseDir), clientCa: tls.clientCa && resolved(tls.clientCa, baseDir) },
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
