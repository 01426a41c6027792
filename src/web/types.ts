// The validated web config (exporter-toolkit's format), shared by its reader, the TLS options and the guards.

import type { TlsServerConfig } from "./tls-config.js";

export interface WebConfig {
  tls: TlsServerConfig | undefined;
  /** user name -> bcrypt hash */
  basicAuthUsers: Record<string, string>;
  /** Added to every response (http_server_config.headers). */
  headers: Record<string, string>;
}
