// The configuration from the environment alone, as the exporter builds it with no config file and no flags.

import { buildConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/types.js";

export function configFromEnv(env: NodeJS.ProcessEnv): Config {
  return buildConfig({ env }, undefined).config;
}
