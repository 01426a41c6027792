// Authenticators: how an account's credential goes on a request, and which headers carry it.

import type { AccountConfig, AuthConfig } from "../config/types.js";

export interface Authenticator {
  apply(headers: Headers, url: URL): void;
  /** Header names that carry the credential: the logger redacts them (see secretHeaderNames). */
  readonly secretHeaders: readonly string[];
}

export function authenticator(auth: AuthConfig): Authenticator {
  switch (auth.type) {
    case "api_key":
      return {
        secretHeaders: [auth.header.toLowerCase()],
        apply: (headers) => headers.set(auth.header, auth.key.reveal()),
      };
    case "bearer":
      return {
        secretHeaders: ["authorization"],
        apply: (headers) => headers.set("authorization", `Bearer ${auth.token.reveal()}`),
      };
    case "basic":
      return {
        secretHeaders: ["authorization"],
        apply: (headers) => headers.set("authorization", `Basic ${Buffer.from(`${auth.username}:${auth.password.reveal()}`).toString("base64")}`),
      };
    case "none":
      return { secretHeaders: [], apply: () => undefined };
  }
}

/** Every header that carries a credential for these accounts (their extra headers too), lower case. */
export function secretHeaderNames(accounts: readonly AccountConfig[]): string[] {
  const names = accounts.flatMap((a) => [...authenticator(a.auth).secretHeaders, ...Object.keys(a.headers)]);
  return [...new Set(names.map((n) => n.toLowerCase()))];
}
