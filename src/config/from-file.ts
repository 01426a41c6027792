// A configuration from a config file alone, in one call: for tests and tools that name the file directly.

import type { Env } from "./env.js";
import { ConfigFile, readConfigFile } from "./file.js";
import { buildConfig } from "./load.js";
import type { Config } from "./types.js";

/** The file at `path`; variables in `env` still override it, as they do for the exporter. */
export function loadConfigFile(path: string, env: Env): Config {
  return buildConfig({ env }, readConfigFile(path)).config;
}

/** Parsed YAML as if read from a file in `baseDir`. */
export function configFromObject(data: unknown, env: Env, baseDir: string): Config {
  return buildConfig({ env }, new ConfigFile(data, baseDir)).config;
}
