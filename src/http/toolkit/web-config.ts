// Reads and validates the --web.config.file (exporter-toolkit's format): TLS, basic auth users, extra headers.

import { dirname, resolve } from "node:path";
import { ConfigError, Problems } from "../../config/errors.js";
import { readText } from "../../config/secret.js";
import { addZodIssues, parseYaml } from "../../config/yaml.js";
import { readTlsPems, tlsOptionsFrom } from "./tls-options.js";
import { type PemSource, type TlsServerConfig, type WebConfig, webConfigSchema } from "./web-config-schema.js";

/** The PEM file paths resolved against the web config's folder, as the toolkit's SetDirectory does. */
function underDir(tls: TlsServerConfig, baseDir: string): TlsServerConfig {
  const at = (source: PemSource): PemSource => ("file" in source ? { file: resolve(baseDir, source.file) } : source);
  return { ...tls, cert: at(tls.cert), key: at(tls.key), clientCa: tls.clientCa && at(tls.clientCa) };
}

export function parseWebConfig(text: string, source: string): WebConfig {
  // An empty file (or one of comments only) turns nothing on, as in exporter-toolkit.
  const data = parseYaml(text, "web config") ?? {};
  const parsed = webConfigSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    const problems = new Problems(data);
    addZodIssues(parsed.error, problems, { schema: webConfigSchema, data, at: [], label: "web config: " });
    problems.throwIfAny();
    throw new ConfigError("web config: invalid");
  }
  const config = { ...parsed.data, tls: parsed.data.tls && underDir(parsed.data.tls, dirname(resolve(source))) };
  // The TLS files are read and checked now, so a bad one stops start-up (or --config.check) with its key named.
  if (config.tls !== undefined) tlsOptionsFrom(config.tls, readTlsPems(config.tls));
  return config;
}

export function loadWebConfig(path: string): WebConfig {
  return parseWebConfig(readText(path, "web config"), path);
}
