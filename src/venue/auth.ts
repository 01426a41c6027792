// Authenticators: how an account's credential goes on a request, which headers carry it, and how it is redacted and shown.

import { REDACTED } from "../config/secret.js";
import type { AuthConfig } from "../config/auth-schemes.js";

export interface Authenticator {
  apply(headers: Headers, url: URL): void;
  /** Header names that carry the credential: the logger redacts them (see secretHeaderNames). */
  readonly secretHeaders: readonly string[];
  /** The credential's values (revealed only when asked), which the redactor hides in any log line or error text, not only in the headers. */
  secrets(): string[];
  /** The scheme as the debug report describes it, the credential as <secret>. */
  readonly shown: string;
}

export function authenticator(auth: AuthConfig): Authenticator {
  switch (auth.type) {
    case "api_key":
      return {
        secretHeaders: [auth.header.toLowerCase()],
        secrets: () => [auth.key.reveal()],
        shown: `api_key in header ${auth.header}: ${REDACTED}`,
        apply: (headers) => headers.set(auth.header, auth.key.reveal()),
      };
    case "bearer":
      return {
        secretHeaders: ["authorization"],
        secrets: () => [auth.token.reveal()],
        shown: `bearer token: ${REDACTED}`,
        apply: (headers) => headers.set("authorization", `Bearer ${auth.token.reveal()}`),
      };
    case "basic":
      return {
        secretHeaders: ["authorization"],
        secrets: () => [auth.password.reveal(), `${auth.username}:${auth.password.reveal()}`],
        shown: `basic, user ${auth.username}, password: ${REDACTED}`,
        apply: (headers) => headers.set("authorization", `Basic ${Buffer.from(`${auth.username}:${auth.password.reveal()}`).toString("base64")}`),
      };
    case "none":
      return { secretHeaders: [], secrets: () => [], shown: "none", apply: () => undefined };
  }
}

/** Every header that carries a credential for these accounts (their extra headers too), lower case. */
export function secretHeaderNames(accounts: ReadonlyArray<{ auth: AuthConfig; headers: Record<string, string> }>): string[] {
  const names = accounts.flatMap((a) => [...authenticator(a.auth).secretHeaders, ...Object.keys(a.headers)]);
  return [...new Set(names.map((n) => n.toLowerCase()))];
}
