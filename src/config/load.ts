// Where the configuration comes from: a YAML file when one is named, else the environment; flags override.

import type { Flags } from "../cli/flags.js";
import { configFromEnv } from "./env.js";
import type { Config } from "./types.js";
import { parseListenAddress, parseLogLevel } from "./values.js";

export async function loadConfig(flags: Flags, env: Record<string, string | undefined>): Promise<Config> {
  // The YAML reader and its schema (yaml, zod) are loaded only when a file is used: the
  // environment-only exporter does without their memory.
  const config =
    flags.configFile === undefined
      ? configFromEnv(env)
      : (await import("./file.js")).loadConfigFile(flags.configFile, env);
  if (flags.webListenAddress !== undefined) {
    config.listenAddress = parseListenAddress(flags.webListenAddress, "--web.listen-address");
  }
  if (flags.logLevel !== undefined) config.logLevel = parseLogLevel(flags.logLevel, "--log.level");
  return config;
}
