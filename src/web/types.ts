// The validated web config (exporter-toolkit's format), shared by its reader, the TLS options and the guards.

import type { TlsServerConfig } from "./web-config-schema.js";

/** rate_limit: one token every `intervalMs`, at most `burst` saved up. */
export interface RateLimit {
  intervalMs: number;
  burst: number;
}

export interface WebConfig {
  tls: TlsServerConfig | undefined;
  /** user name -> bcrypt hash */
  basicAuthUsers: Record<string, string>;
  /** Added to every response (http_server_config.headers). */
  headers: Record<string, string>;
  /** http_server_config.http2 as the file sets it (start-up notes it when true); HTTP/1.1 is served either way. */
  http2?: boolean;
  /** rate_limit; absent when it is off (interval or burst absent or 0). */
  rateLimit?: RateLimit;
}
