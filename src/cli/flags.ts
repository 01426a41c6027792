// Command-line flags in Prometheus style, each with its environment variable and default.

import { parseArgs } from "node:util";
import { DEFAULTS } from "../config/defaults.js";
import { ConfigError } from "../config/errors.js";

export interface Flags {
  configFile: string | undefined;
  configCheck: boolean;
  webListenAddress: string | undefined;
  webConfigFile: string | undefined;
  logLevel: string | undefined;
  logFormat: "json" | "logfmt";
  help: boolean;
  version: boolean;
}

/** Every flag, for parseArgs and for --help: [flag, environment variable, default, meaning]. */
export const FLAG_TABLE: Array<[string, string, string, string]> = [
  ["--config.file=PATH", "TRADING_CONFIG_FILE", "(none: configure from TRADING_* variables)", "YAML config file of the venue and its accounts."],
  ["--config.check", "", "", "Validate the configuration (and web config) and exit 0 or 1, without serving."],
  ["--web.listen-address=HOST:PORT", "TRADING_LISTEN_ADDRESS", DEFAULTS.listenAddress, "Address to serve on; overrides the config file."],
  ["--web.config.file=PATH", "TRADING_WEB_CONFIG_FILE", "(none: plain HTTP, no auth)", "Exporter-toolkit style file for TLS and basic auth."],
  ["--log.level=LEVEL", "TRADING_LOG_LEVEL", DEFAULTS.logLevel, "debug, info, warn or error."],
  ["--log.format=FORMAT", "TRADING_LOG_FORMAT", "json", "json (one object per line) or logfmt (key=value, for people)."],
  ["--help", "", "", "Print this help and exit."],
  ["--version", "", "", "Print the version and exit."],
];

/** The environment-only configuration (no --config.file): [variable, default, meaning]. */
export const ENV_TABLE: Array<[string, string, string]> = [
  ["TRADING_BASE_URL", "required", "Base URL of the venue."],
  ["TRADING_API_KEY / TRADING_API_KEY_FILE", "one required", "The API key, or a file holding it (re-read on reload)."],
  ["TRADING_API_KEY_HEADER", DEFAULTS.apiKeyHeader, "Header that carries the key."],
  ["TRADING_COLLATERAL_IDS", "required", "Comma-separated collateral ids."],
  ["TRADING_ACCOUNT", DEFAULTS.account, "Value of the account label."],
  ["TRADING_HISTORY_MAX_ORDERS", String(DEFAULTS.historyMaxOrders), "Most history orders read per scrape."],
  ["TRADING_HISTORY_PAGE_SIZE", String(DEFAULTS.historyPageSize), "limit of each history page."],
  ["TRADING_ACTIVE_ORDERS_LIMIT", String(DEFAULTS.activeOrdersLimit), "Limit asked of the active-order list."],
  ["TRADING_ACTIVE_ORDERS_LIMIT_PARAM", DEFAULTS.activeOrdersLimitParam, "Query parameter carrying that limit."],
  ["TRADING_MAX_BODY_BYTES", String(DEFAULTS.maxBodyBytes), "Largest decoded venue answer accepted."],
  ["TRADING_SCRAPE_TIMEOUT_SECONDS", String(DEFAULTS.defaultTimeoutSeconds), "Deadline without Prometheus's timeout header."],
  ["TRADING_SCRAPE_TIMEOUT_OFFSET_SECONDS", String(DEFAULTS.timeoutOffsetSeconds), "Subtracted from Prometheus's timeout header."],
  ["TRADING_SCRAPE_TIMEOUT_MAX_SECONDS", String(DEFAULTS.maxTimeoutSeconds), "Upper bound of any scrape's deadline."],
  ["TRADING_MARKETS_CACHE_SECONDS", String(DEFAULTS.marketsCacheSeconds), "How long the public market list is reused."],
  ["TRADING_REUSE_UNCHANGED_BODIES", String(DEFAULTS.reuseUnchangedBodies), "Reuse the work for an unchanged venue answer."],
  ["TRADING_MAX_RETRY_AFTER_SECONDS", String(DEFAULTS.maxRetryAfterSeconds), "Longest Retry-After honoured."],
  ["TRADING_MAX_IN_FLIGHT_SCRAPES", String(DEFAULTS.maxInFlight), "Scrapes at once; more answer 503."],
  ["TRADING_MAX_SERIES", String(DEFAULTS.maxSeries), "Series per scrape; the rest are dropped and counted."],
];

export function parseFlags(argv: string[], env: Record<string, string | undefined>): Flags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        "config.file": { type: "string" },
        "config.check": { type: "boolean" },
        "web.listen-address": { type: "string" },
        "web.config.file": { type: "string" },
        "log.level": { type: "string" },
        "log.format": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    }));
  } catch (error) {
    // parseArgs names the flag; keep the first sentence only, so it stays one line.
    const message = error instanceof Error ? error.message.split(". ")[0] : String(error);
    throw new ConfigError(`command line: ${message}`);
  }
  const str = (flag: string, variable: string): string | undefined => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const fromEnv = env[variable];
    return fromEnv === undefined || fromEnv.trim() === "" ? undefined : fromEnv;
  };
  const format = str("log.format", "TRADING_LOG_FORMAT") ?? "json";
  if (format !== "json" && format !== "logfmt") {
    throw new ConfigError("--log.format: expected json or logfmt");
  }
  return {
    configFile: str("config.file", "TRADING_CONFIG_FILE"),
    configCheck: values["config.check"] === true,
    webListenAddress: typeof values["web.listen-address"] === "string" ? values["web.listen-address"] : undefined,
    webConfigFile: str("web.config.file", "TRADING_WEB_CONFIG_FILE"),
    logLevel: typeof values["log.level"] === "string" ? values["log.level"] : undefined,
    logFormat: format,
    help: values.help === true,
    version: values.version === true,
  };
}

export function usage(): string {
  const width = Math.max(...FLAG_TABLE.map(([flag]) => flag.length));
  const rows = FLAG_TABLE.map(([flag, variable, fallback, meaning]) => {
    const extra = [variable && `env ${variable}`, fallback && `default ${fallback}`].filter(Boolean).join("; ");
    return `  ${flag.padEnd(width)}  ${meaning}${extra ? ` (${extra})` : ""}`;
  });
  const envWidth = Math.max(...ENV_TABLE.map(([name]) => name.length));
  const envRows = ENV_TABLE.map(([name, fallback, meaning]) => `  ${name.padEnd(envWidth)}  ${meaning} (default ${fallback})`);
  return [
    "usage: trading-exporter [flags]",
    "",
    "Prometheus exporter for a leveraged trading venue. Without --config.file it is configured from",
    "the TRADING_* environment variables below; with it, from the YAML file (see the README).",
    "",
    "Flags:",
    ...rows,
    "",
    "Environment (without --config.file):",
    ...envRows,
    "",
    "Signals: SIGHUP reloads the config and secret files; SIGTERM and SIGINT stop after in-flight scrapes.",
  ].join("\n");
}
