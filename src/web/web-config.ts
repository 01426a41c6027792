// Reads and validates the --web.config.file (exporter-toolkit's format): TLS, basic auth users, extra headers.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseDocument } from "yaml";
import { ConfigError } from "../config/errors.js";
import { FROM_FILE, Problems } from "../config/problems.js";
import { addZodIssues, documentOrder } from "../config/zod-issues.js";
import { tlsServerOptions } from "./tls-options.js";
import type { WebConfig } from "./types.js";
import { webConfigSchema, type WebConfigFile } from "./web-config-schema.js";
import { libraryErrorText } from "../util/error-text.js";

export type { WebConfig } from "./types.js";

function parseYaml(text: string): unknown {
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first !== undefined) {
    // Only the line: the message would quote the text, which may hold a password hash.
    const line = first.linePos?.[0].line;
    throw new ConfigError(line === undefined ? "web config: not valid YAML" : `web config: not valid YAML (line ${line})`);
  }
  // An empty file (or one of comments only) turns nothing on, as in exporter-toolkit.
  return doc.toJS() ?? {};
}

/**
 * The toolkit turns the limiter off with a zero interval; a zero burst there would refuse every
 * request, which no one means, so it turns the limiter off here too.
 */
function rateLimitOf(file: WebConfigFile["rate_limit"]): Pick<WebConfig, "rateLimit"> {
  const intervalMs = file?.interval ?? 0;
  const burst = file?.burst ?? 0;
  return intervalMs > 0 && burst > 0 ? { rateLimit: { intervalMs, burst } } : {};
}

function toWebConfig(file: WebConfigFile, baseDir: string): WebConfig {
  const tlsFile = file.tls_server_config;
  const tls: WebConfig["tls"] =
    tlsFile === undefined
      ? undefined
      : {
          certFile: resolve(baseDir, tlsFile.cert_file),
          keyFile: resolve(baseDir, tlsFile.key_file),
          minVersion: tlsFile.min_version,
          ...(tlsFile.client_ca_file === undefined ? {} : { clientCaFile: resolve(baseDir, tlsFile.client_ca_file) }),
        };
  return {
    tls,
    basicAuthUsers: { ...file.basic_auth_users },
    headers: { ...file.http_server_config?.headers },
    http2: file.http_server_config?.http2 ?? true,
    ...rateLimitOf(file.rate_limit),
  };
}

/**
 * Parses web config YAML. `source` is the file's path: relative cert/key/CA paths resolve against its
 * directory. The TLS files are read now, so a missing or unusable one stops start-up with its key named.
 */
export function parseWebConfig(text: string, source: string): WebConfig {
  const data = parseYaml(text);
  const parsed = webConfigSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    // Every problem at once, in file order, an unknown key with the key probably meant.
    const problems = new Problems();
    addZodIssues(parsed.error, problems, { schema: webConfigSchema, data, at: [], label: "web config: ", order: documentOrder(data), source: FROM_FILE });
    problems.throwIfAny();
  }
  if (!parsed.success) throw new ConfigError("web config: invalid");
  const config = toWebConfig(parsed.data, dirname(resolve(source)));
  tlsServerOptions(config);
  return config;
}

export function loadWebConfig(path: string): WebConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(libraryErrorText(error, `web config: cannot read ${JSON.stringify(path)}`));
  }
  return parseWebConfig(text, path);
}
