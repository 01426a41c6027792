// The validated web config (exporter-toolkit's format), shared by its reader, the TLS options and the guards.

export interface WebConfig {
  tls: { certFile: string; keyFile: string; minVersion: "TLS12" | "TLS13"; clientCaFile?: string } | undefined;
  /** user name -> bcrypt hash */
  basicAuthUsers: Record<string, string>;
  /** Added to every response (http_server_config.headers). */
  headers: Record<string, string>;
}
