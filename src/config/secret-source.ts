// Reads a credential from exactly one of: inline value, a file (`*_file`), an environment variable (`*_env`).

import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ConfigError } from "./errors.js";
import { Secret } from "./secret.js";
import { libraryErrorText } from "../util/error-text.js";

export interface SecretSpec {
  inline?: string | undefined;
  file?: string | undefined;
  env?: string | undefined;
}

/**
 * `key` is the key path without suffix ("accounts[0].auth.key"); errors name it, never the value.
 * Relative files resolve against `baseDir` (the config file's folder).
 */
export function readSecretSpec(spec: SecretSpec, key: string, env: Record<string, string | undefined>, baseDir: string): Secret {
  const given = [spec.inline, spec.file, spec.env].filter((v) => v !== undefined).length;
  const names = `${key}, ${key}_file or ${key}_env`;
  if (given === 0) throw new ConfigError(`${key}: required (give one of ${names})`);
  if (given > 1) throw new ConfigError(`${key}: give only one of ${names}`);
  if (spec.inline !== undefined) {
    if (spec.inline.trim() === "") throw new ConfigError(`${key}: is empty`);
    return new Secret(spec.inline.trim(), key);
  }
  if (spec.env !== undefined) {
    const value = env[spec.env];
    if (value === undefined || value.trim() === "") {
      throw new ConfigError(`${key}_env: the environment variable ${spec.env} is not set or empty`);
    }
    return new Secret(value.trim(), `${key}_env (${spec.env})`);
  }
  const path = isAbsolute(spec.file!) ? spec.file! : resolve(baseDir, spec.file!);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(libraryErrorText(error, `${key}_file: cannot read the file`));
  }
  if (text.trim() === "") throw new ConfigError(`${key}_file: the file is empty`);
  return new Secret(text.trim(), `${key}_file`);
}
