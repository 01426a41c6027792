// The web config file's shape, key for key as Prometheus exporter-toolkit spells it, strict about the rest.

import { z } from "zod";
import { headerValueProblem } from "../../config/secret.js";
import { goDurationMs } from "./go-duration.js";
import { cipherSuiteProblem, curveProblem, isTls13Suite, TLS_VERSIONS } from "./tls-names.js";

// exporter-toolkit allows only these, some with fixed values, so one file means the same to every exporter.
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  "Strict-Transport-Security": undefined,
  "X-Content-Type-Options": ["nosniff"],
  "X-Frame-Options": ["deny", "sameorigin"],
  "X-XSS-Protection": undefined,
  "Content-Security-Policy": undefined,
};

// An empty path would resolve to the config file's own directory; say so instead.
const filePath = z.string().refine((path) => path !== "", "must not be empty");

const CLIENT_AUTH_TYPES = ["NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven", "RequireAndVerifyClientCert"] as const;

const tlsVersion = z.enum(TLS_VERSIONS);
// Go reads an inline PEM given as "" as not given.
const inlinePem = z.string().transform((text) => (text === "" ? undefined : text));

export type PemSource = { file: string } | { inline: string };

function pemSource(inline: string | undefined, file: string | undefined): PemSource | undefined {
  if (file !== undefined) return { file };
  return inline === undefined ? undefined : { inline };
}

const nonEmpty = (list: string[] | undefined): string[] | undefined => (list?.length ? list : undefined);

const shownName = (name: string): string => (/^[A-Za-z0-9_]{1,64}$/.test(name) ? `${name}: ` : "");

const tlsServerConfig = z
  .strictObject({
    cert: inlinePem.optional(),
    key: inlinePem.optional(),
    client_ca: inlinePem.optional(),
    cert_file: filePath.optional(),
    key_file: filePath.optional(),
    // RequireClientCert: the toolkit's older name for RequireAnyClientCert, still taken.
    client_auth_type: z.enum([...CLIENT_AUTH_TYPES, "RequireClientCert"]).default("NoClientCert"),
    client_ca_file: filePath.optional(),
    client_allowed_sans: z.array(z.string()).optional(),
    min_version: tlsVersion.default("TLS12"),
    max_version: tlsVersion.default("TLS13"),
    cipher_suites: z.array(z.string()).optional(),
    prefer_server_cipher_suites: z.boolean().default(true),
    curve_preferences: z.array(z.string()).optional(),
  })
  .superRefine((tls, ctx) => {
    const report = (path: PropertyKey[], message: string): void => ctx.addIssue({ code: "custom", path, message });
    for (const name of ["cert", "key", "client_ca"] as const) {
      const [inline, file] = [tls[name], tls[`${name}_file`]];
      if (inline !== undefined && file !== undefined) report([name], `give ${name} or ${name}_file, not both`);
      // "required" on the file key, so a misspelt cert_fle is reported in its place (config/problems.ts).
      else if (name !== "client_ca" && inline === undefined && file === undefined) report([`${name}_file`], `required (or ${name} with the PEM inline)`);
    }
    if (tls.client_auth_type === "NoClientCert") {
      const needsPolicy = "is set but client_auth_type is NoClientCert (the default), so no certificate is asked for: set RequireAndVerifyClientCert";
      for (const key of ["client_ca", "client_ca_file", "client_allowed_sans"] as const) if (tls[key] !== undefined) report([key], needsPolicy);
    }
    if (TLS_VERSIONS.indexOf(tls.min_version) > TLS_VERSIONS.indexOf(tls.max_version)) {
      report(["min_version"], `${tls.min_version} is above max_version ${tls.max_version}`);
    }
    const suites = tls.cipher_suites ?? [];
    suites.forEach((name, i) => {
      const problem = cipherSuiteProblem(name);
      if (problem !== undefined) report(["cipher_suites", i], `${shownName(name)}${problem}`);
    });
    if (suites.length > 0 && suites.every(isTls13Suite)) {
      report(["cipher_suites"], "lists only TLS 1.3 suites, which are not configurable (as in Go): list TLS 1.0-1.2 ones or leave the key out");
    }
    (tls.curve_preferences ?? []).forEach((name, i) => {
      const problem = curveProblem(name);
      if (problem !== undefined) report(["curve_preferences", i], `${shownName(name)}${problem}`);
    });
  })
  .transform((tls) => ({
    cert: pemSource(tls.cert, tls.cert_file)!,
    key: pemSource(tls.key, tls.key_file)!,
    clientCa: pemSource(tls.client_ca, tls.client_ca_file),
    clientAuthType: tls.client_auth_type === "RequireClientCert" ? "RequireAnyClientCert" : tls.client_auth_type,
    clientAllowedSans: tls.client_allowed_sans,
    minVersion: tls.min_version,
    maxVersion: tls.max_version,
    cipherSuites: nonEmpty(tls.cipher_suites),
    preferServerCipherSuites: tls.prefer_server_cipher_suites,
    curvePreferences: nonEmpty(tls.curve_preferences),
  }));

export type TlsServerConfig = z.output<typeof tlsServerConfig>;

// The message never quotes the value: it is a password hash.
const bcryptHash = z.string().regex(/^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/, "not a bcrypt hash ($2a$, $2b$ or $2y$ with cost 04-31)");

const basicAuthUsers = z.record(z.string(), bcryptHash).superRefine((users, ctx) => {
  for (const name of Object.keys(users)) {
    // Basic credentials split at the first colon, so such a user could never log in.
    if (name === "" || name.includes(":")) {
      ctx.addIssue({ code: "custom", path: [name], message: "a user name must be non-empty and without ':'" });
    }
  }
});

// Go's YAML reads a bare number or boolean into a string field as written (X-XSS-Protection: 1): so do we.
const headerValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const headers = z.record(z.string(), headerValue).superRefine((entries, ctx) => {
  for (const [name, value] of Object.entries(entries)) {
    if (!Object.hasOwn(ALLOWED_HEADERS, name)) {
      const message = `cannot be configured (allowed: ${Object.keys(ALLOWED_HEADERS).join(", ")})`;
      ctx.addIssue({ code: "custom", path: [name], message });
      continue;
    }
    const allowed = ALLOWED_HEADERS[name];
    if (allowed !== undefined && !allowed.includes(value)) {
      ctx.addIssue({ code: "custom", path: [name], message: `expected one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}` });
    } else {
      // Node refuses such a value (a control character, or one beyond Latin-1) on every answer; refuse it at start-up instead.
      const problem = headerValueProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: `${problem}, so it is not a valid HTTP header value` });
    }
  }
});

const goDuration = z.union([z.string(), z.number().int()]).transform((value, ctx) => {
  const ms = typeof value === "number" ? value / 1e6 : goDurationMs(value);
  if (ms !== undefined && ms >= 0) return ms;
  ctx.addIssue({ code: "custom", message: 'expected a duration such as "1s", "250ms" or "1m30s" (0 turns the limit off)' });
  return z.NEVER;
});

const httpServerConfig = z.strictObject({
  // Accepted so exporter-toolkit's files load unchanged; the server speaks HTTP/1.1 whatever it says.
  http2: z.boolean().optional(),
  headers: headers.optional(),
});

export interface RateLimit {
  intervalMs: number;
  burst: number;
}

// A zero burst would refuse every request, which no one means: it turns the limiter off, as a zero interval does.
const rateLimit = z
  .strictObject({
    interval: goDuration.optional(),
    burst: z.number().int().min(0).optional(),
  })
  .transform(({ interval = 0, burst = 0 }): RateLimit | undefined => (interval > 0 && burst > 0 ? { intervalMs: interval, burst } : undefined));

export const webConfigSchema = z
  .strictObject({
    tls_server_config: tlsServerConfig.optional(),
    basic_auth_users: basicAuthUsers.optional(),
    http_server_config: httpServerConfig.optional(),
    rate_limit: rateLimit.optional(),
  })
  .transform(({ tls_server_config: tls, basic_auth_users: users, http_server_config: http, rate_limit: limit }) => ({
    tls,
    basicAuthUsers: { ...users },
    headers: { ...http?.headers },
    ...(http?.http2 === undefined ? {} : { http2: http.http2 }),
    ...(limit === undefined ? {} : { rateLimit: limit }),
  }));

export type WebConfig = z.output<typeof webConfigSchema>;
