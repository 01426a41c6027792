// Reads and validates the --web.config.file, key for key as Prometheus exporter-toolkit spells it, strict about the rest.

import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ConfigError, Problems } from "../../config/errors.js";
import { headerValueProblem, readText } from "../../config/secret.js";
import { addZodIssues, parseYaml } from "../../config/yaml.js";
import { type PemSource, readTlsPems, tlsOptionsFrom, tlsServerConfig } from "./tls-config.js";

// exporter-toolkit allows only these, some with fixed values, so one file means the same to every exporter.
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  "Strict-Transport-Security": undefined,
  "X-Content-Type-Options": ["nosniff"],
  "X-Frame-Options": ["deny", "sameorigin"],
  "X-XSS-Protection": undefined,
  "Content-Security-Policy": undefined,
};

/** Milliseconds in one of each unit Go accepts; µ is both the micro sign and the Greek letter, as in Go. */
const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = "(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)";

/** Milliseconds of an unsigned duration as Go's time.ParseDuration reads it ("1s", "1m30s"), or undefined; "0" needs no unit. */
export function goDurationMs(text: string): number | undefined {
  if (text === "0") return 0;
  if (!new RegExp(`^(?:${PART})+$`).test(text)) return undefined;
  const total = [...text.matchAll(new RegExp(PART, "g"))].reduce((sum, [, n, unit = ""]) => sum + Number(n) * (UNIT_MS[unit] ?? Number.NaN), 0);
  return Number.isFinite(total) ? total : undefined;
}

// The message never quotes the value: it is a password hash.
const bcryptHash = z.string().regex(/^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/, "not a bcrypt hash ($2a$, $2b$ or $2y$ with cost 04-31)");

const basicAuthUsers = z.record(z.string(), bcryptHash).superRefine((users, ctx) => {
  for (const name of Object.keys(users)) {
    // Basic credentials split at the first colon, so such a user could never log in.
    if (name === "" || name.includes(":")) ctx.addIssue({ code: "custom", path: [name], message: "a user name must be non-empty and without ':'" });
  }
});

// Go's YAML reads a bare number or boolean into a string field as written (X-XSS-Protection: 1): so do we.
const headerValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const headers = z.record(z.string(), headerValue).superRefine((entries, ctx) => {
  for (const [name, value] of Object.entries(entries)) {
    const allowed = ALLOWED_HEADERS[name];
    // Node refuses a value with a control character, or one beyond Latin-1, on every answer; refuse it at start-up instead.
    const problem = !Object.hasOwn(ALLOWED_HEADERS, name)
      ? `cannot be configured (allowed: ${Object.keys(ALLOWED_HEADERS).join(", ")})`
      : allowed !== undefined && !allowed.includes(value)
        ? `expected one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`
        : headerValueProblem(value)?.concat(", so it is not a valid HTTP header value");
    if (problem !== undefined) ctx.addIssue({ code: "custom", path: [name], message: problem });
  }
});

const goDuration = z.union([z.string(), z.number().int()]).transform((value, ctx) => {
  const ms = typeof value === "number" ? value / 1e6 : goDurationMs(value);
  if (ms !== undefined && ms >= 0) return ms;
  ctx.addIssue({ code: "custom", message: 'expected a duration such as "1s", "250ms" or "1m30s" (0 turns the limit off)' });
  return z.NEVER;
});

// A zero burst would refuse every request, which no one means: it turns the limiter off, as a zero interval does.
const rateLimit = z
  .strictObject({ interval: goDuration.optional(), burst: z.number().int().min(0).optional() })
  .transform(({ interval = 0, burst = 0 }) => (interval > 0 && burst > 0 ? { intervalMs: interval, burst } : undefined));

export type RateLimit = NonNullable<z.output<typeof rateLimit>>;

const webConfigSchema = z
  .strictObject({
    tls_server_config: tlsServerConfig.optional(),
    basic_auth_users: basicAuthUsers.optional(),
    // http2 is accepted so exporter-toolkit's files load unchanged; the server speaks HTTP/1.1 whatever it says.
    http_server_config: z.strictObject({ http2: z.boolean().optional(), headers: headers.optional() }).optional(),
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
  const { tls } = parsed.data;
  if (tls === undefined) return parsed.data;
  // The PEM file paths are resolved against the web config's folder, as the toolkit's SetDirectory does.
  const at = (pem: PemSource): PemSource => ("file" in pem ? { file: resolve(dirname(resolve(source)), pem.file) } : pem);
  const config = { ...parsed.data, tls: { ...tls, cert: at(tls.cert), key: at(tls.key), clientCa: tls.clientCa && at(tls.clientCa) } };
  // The TLS files are read and checked now, so a bad one stops start-up (or --config.check) with its key named.
  tlsOptionsFrom(config.tls, readTlsPems(config.tls));
  return config;
}

export function loadWebConfig(path: string): WebConfig {
  return parseWebConfig(readText(path, "web config"), path);
}
