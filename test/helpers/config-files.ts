// A configuration from a config file (or parsed YAML) in one call, as the exporter would build it.

import { dirname } from "node:path";
import { ConfigFile } from "../../src/config/file.js";
import { buildConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/types.js";
import { readText } from "../../src/config/secret.js";
import { parseYaml } from "../../src/config/yaml.js";

/** The file at `path`; variables in `env` still override it, as they do for the exporter. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv): Config {
  return buildConfig({ env }, new ConfigFile(parseYaml(readText(path, "config file"), "config file"), dirname(path))).config;
}

/** Parsed YAML as if read from a file in `baseDir`. */
export function configFromObject(data: unknown, env: NodeJS.ProcessEnv, baseDir: string): Config {
  return buildConfig({ env }, new ConfigFile(data, baseDir)).config;
}
