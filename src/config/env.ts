// The environment's part of the configuration: its secrets, and the TRADING_* names nobody reads.

import { ConfigError } from "./errors.js";
import { nearest } from "./problems.js";
import { type Secret, secretFromFile, secretFromText } from "./secret.js";
import { knownVariables, REMOVED_SETTINGS } from "./settings.js";

export type Env = Record<string, string | undefined>;

/** A variable's value, or undefined when it is unset or only whitespace. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A secret from its variable or from the file its *_FILE variable names; exactly one of the two. */
export function readSecret(env: Env, name: string): Secret {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct !== undefined && file !== undefined) throw new ConfigError(`${name} and ${name}_FILE: give one, not both`);
  if (direct !== undefined) return secretFromText(direct, name);
  if (file === undefined) throw new ConfigError(`${name} or ${name}_FILE: required`);
  return secretFromFile(file, `${name}_FILE`);
}

/** Each TRADING_* variable that no setting reads, with the name probably meant and the line that says so. */
export function unknownVariables(env: Env): { name: string; meant: string | undefined; text: string }[] {
  const known = knownVariables();
  return Object.keys(env)
    .filter((name) => name.startsWith("TRADING_") && !known.includes(name) && !REMOVED_SETTINGS.some((r) => r.env === name))
    .sort()
    .map((name) => {
      const meant = nearest(name, known);
      return { name, meant, text: `unknown variable, ignored${meant === undefined ? "" : ` (did you mean ${meant}?)`}` };
    });
}
