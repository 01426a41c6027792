// The validated web config (exporter-toolkit's format), shared by its reader, the TLS options and the guards;
// tls_server_config with where each PEM comes from, exporter-toolkit's defaults applied.

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

/** exporter-toolkit's client_auth_type values, Go's tls.ClientAuthType names. */
export const CLIENT_AUTH_TYPES = [
  "NoClientCert",
  "RequestClientCert",
  "RequireAnyClientCert",
  "VerifyClientCertIfGiven",
  "RequireAndVerifyClientCert",
] as const;
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

export const TLS_VERSIONS = ["TLS10", "TLS11", "TLS12", "TLS13"] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

/** A PEM given inline in the web config (fixed until restart), or a file read again when it changes. */
export type PemSource = { file: string } | { inline: string };

export interface TlsServerConfig {
  cert: PemSource;
  key: PemSource;
  clientCa?: PemSource | undefined;
  clientAuthType: ClientAuthType;
  /** The client certificate must carry one of these SANs (DNS, IP, e-mail or URI), exactly. */
  clientAllowedSans?: string[] | undefined;
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  /** Go names of the TLS 1.0-1.2 suites, in preference order (TLS 1.3 ones are accepted and ignored, as in Go). */
  cipherSuites?: string[] | undefined;
  preferServerCipherSuites: boolean;
  /** Go names (CurveP256, ...), in preference order. */
  curvePreferences?: string[] | undefined;
}
