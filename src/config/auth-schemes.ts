// The venue credential's schemes: what each takes from the file and the environment, the credential it makes (sent by venue/auth.ts).

import type { Secret } from "./secret.js";

/** Per scheme: its secret's key in the file (with `_file` and `_env`) and its variable, and whether it takes a header or user name. */
export const AUTH_SCHEMES = {
  api_key: { secret: "key", secretEnv: "TRADING_API_KEY", headerName: true, username: false },
  bearer: { secret: "token", secretEnv: "TRADING_BEARER_TOKEN", headerName: false, username: false },
  basic: { secret: "password", secretEnv: "TRADING_BASIC_PASSWORD", headerName: false, username: true },
  none: { secret: undefined, secretEnv: undefined, headerName: false, username: false },
} as const;

export type AuthType = keyof typeof AUTH_SCHEMES;
export const AUTH_TYPES = Object.keys(AUTH_SCHEMES) as AuthType[];

export type AuthConfig =
  | { type: "api_key"; header: string; key: Secret }
  | { type: "bearer"; token: Secret }
  | { type: "basic"; username: string; password: Secret }
  | { type: "none" };

type Part<T> = () => T | undefined;

/** An account's credential of `type` from its parts (undefined: a problem reported); each is read, so each problem is named. */
export function authOf(type: AuthType, header: Part<string>, username: Part<string>, secret: Part<Secret>): AuthConfig | undefined {
  if (type === "none") return { type };
  const scheme = AUTH_SCHEMES[type];
  const [name, user, value] = [scheme.headerName ? header() : "", scheme.username ? username() : "", secret()];
  if (name === undefined || user === undefined || value === undefined) return undefined;
  if (type === "api_key") return { type, header: name, key: value };
  return type === "bearer" ? { type, token: value } : { type, username: user, password: value };
}
