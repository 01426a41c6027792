// The one table of settings: each setting's file key, environment variable, flag, parser, default and
// help. The file loader, the environment loader, the flags, --help and the tables of docs/configuration.md all read it.

import { configValue, type Setting, setting } from "./setting.js";
import {
  AUTH_TYPES,
  countOrZero,
  LOG_FORMATS,
  LOG_LEVELS,
  MAX_TOTAL_SHARDS,
  oneOf,
  parseAccountName,
  parseBaseUrl,
  parseBoolean,
  parseHeaderName,
  parseIdList,
  parseListenAddresses,
  parseShard,
  parseHeaderValue,
  parseTelemetryPath,
  parseText,
  positiveInt,
  seconds,
  wholeNumber,
} from "./values.js";

const SECONDS_MAX = 86_400;

export const SETTINGS = {
  "config.file": setting({
    file: false,
    flag: "config.file",
    arg: "PATH",
    env: "TRADING_CONFIG_FILE",
    shown: "none: the environment",
    help: "YAML config file of the venue and its accounts.",
    parse: parseText,
  }),
  "web.listen_address": setting({
    at: "listenAddresses",
    startupOnly: true,
    flag: "web.listen-address",
    repeatable: true,
    arg: "HOST:PORT",
    env: "TRADING_LISTEN_ADDRESS",
    default: parseListenAddresses("0.0.0.0:9842", "default"),
    shown: "0.0.0.0:9842",
    help: "Address to serve on; repeat the flag to serve on several.",
    more: "`[::1]:9842` for IPv6, `:9842` for all interfaces. The variable takes a comma-separated list, the file key one address or a list.",
    parse: parseListenAddresses,
  }),
  "web.systemd_socket": setting({
    at: "web.systemdSocket",
    startupOnly: true,
    flag: "web.systemd-socket",
    switch: true,
    env: "TRADING_WEB_SYSTEMD_SOCKET",
    default: false,
    help: "Serve on the sockets systemd passes (socket activation) instead of the listen addresses.",
    more: "Read from `LISTEN_FDS` and `LISTEN_PID`, as the exporter-toolkit does; the exporter stops at start-up if there are none.",
    parse: parseBoolean,
  }),
  "web.telemetry_path": setting({
    at: "web.telemetryPath",
    startupOnly: true,
    flag: "web.telemetry-path",
    arg: "PATH",
    env: "TRADING_WEB_TELEMETRY_PATH",
    default: "/metrics",
    help: "Path under which the metrics are served.",
    more: "The status page links to it; the old `/metrics` answers 404 once it moved.",
    parse: parseTelemetryPath,
  }),
  "web.disable_exporter_metrics": setting({
    at: "web.disableExporterMetrics",
    startupOnly: true,
    flag: "web.disable-exporter-metrics",
    switch: true,
    env: "TRADING_WEB_DISABLE_EXPORTER_METRICS",
    default: false,
    help: "Leave the process and Node.js runtime metrics out of the telemetry path.",
    more: "No `process_*` or `nodejs_*` series; the `trading_exporter_*` ones stay, as the alerts read them.",
    parse: parseBoolean,
  }),
  "web.config_file": setting({
    at: "webConfigFile",
    startupOnly: true,
    flag: "web.config.file",
    arg: "PATH",
    env: "TRADING_WEB_CONFIG_FILE",
    shown: "none: plain HTTP, no auth",
    help: "Exporter-toolkit style file for TLS and basic auth of the exporter itself.",
    more: "In the config file, relative to the file's folder. See [Securing the exporter](security.md#securing-the-exporter).",
    parse: parseText,
  }),
  "web.max_connections": setting({
    at: "web.maxConnections",
    startupOnly: true,
    flag: "web.max-connections",
    arg: "N",
    env: "TRADING_WEB_MAX_CONNECTIONS",
    default: 512,
    help: "Connections to the exporter open at once on each listener, up to 1000000; one more is closed at once.",
    more: "Prometheus's own `--web.max-connections` default. Closes are counted in `trading_exporter_http_connections_dropped_total`; keep it under the open-files limit.",
    parse: positiveInt(1_000_000),
  }),
  "web.idle_timeout_seconds": setting({
    at: "web.idleTimeoutSeconds",
    startupOnly: true,
    env: "TRADING_WEB_IDLE_TIMEOUT_SECONDS",
    default: 65,
    help: "An idle keep-alive connection to the exporter is closed after this long.",
    more: "Longer than the scrape interval, so Prometheus reuses its connection.",
    parse: seconds({ zero: false, max: SECONDS_MAX }),
  }),
  "web.write_timeout_seconds": setting({
    at: "web.writeTimeoutSeconds",
    startupOnly: true,
    env: "TRADING_WEB_WRITE_TIMEOUT_SECONDS",
    default: 120,
    help: "A response unfinished this long after its request has its connection closed (Go's WriteTimeout).",
    parse: seconds({ zero: false, max: SECONDS_MAX }),
  }),
  "log.level": setting({
    at: "logLevel",
    startupOnly: true,
    flag: "log.level",
    arg: "LEVEL",
    env: "TRADING_LOG_LEVEL",
    default: "info",
    help: "debug, info, warn or error.",
    more: "`debug` also logs one line per collection: accounts, series and time taken.",
    parse: oneOf(LOG_LEVELS),
  }),
  "log.format": setting({
    at: "logFormat",
    startupOnly: true,
    flag: "log.format",
    arg: "FORMAT",
    env: "TRADING_LOG_FORMAT",
    default: "json",
    help: "json (one object per line, on stderr) or logfmt (key=value, for people).",
    parse: oneOf(LOG_FORMATS),
  }),
  "sharding.shard": setting({
    at: "sharding.shard",
    file: false,
    flag: "shard",
    arg: "I",
    env: "TRADING_SHARD",
    default: 0,
    help: "This replica's shard, from 0: it serves only the accounts whose name hashes to it.",
    more: "A StatefulSet pod name ending in `-I` is taken as shard I (`trading-exporter-2` is 2), so the downward API's `metadata.name` can be passed. See [Sharding](deployment.md#sharding-accounts-over-replicas).",
    parse: parseShard,
  }),
  "sharding.total_shards": setting({
    at: "sharding.totalShards",
    file: false,
    flag: "total-shards",
    arg: "N",
    env: "TRADING_TOTAL_SHARDS",
    default: 1,
    help: `Number of replicas the accounts are split over, up to ${MAX_TOTAL_SHARDS}; 1 serves every account.`,
    more: "An account belongs to shard (first 8 bytes of SHA-256(name), big-endian) mod N; `--config.check` prints each account's shard.",
    parse: positiveInt(MAX_TOTAL_SHARDS),
  }),
  "venue.base_url": setting({
    at: "venue.baseUrl",
    env: "TRADING_BASE_URL",
    required: true,
    help: "Base URL of the venue; the /v1/... paths are appended to it.",
    more: "Must be `http(s)://`, with no credentials, query or fragment in it.",
    parse: parseBaseUrl,
  }),
  "account.name": setting({
    env: "TRADING_ACCOUNT",
    envAccount: true,
    default: "default",
    help: "Value of the account label (1-64 of A-Z a-z 0-9 _ . : -).",
    more: "In the config file: each account's `name`.",
    parse: parseAccountName,
  }),
  "account.collateral_ids": setting({
    env: "TRADING_COLLATERAL_IDS",
    envAccount: true,
    required: true,
    help: "Comma-separated collateral ids; account-info is called once per id per collection.",
    more: "In the config file: each account's `collateral_ids`.",
    parse: parseIdList,
  }),
  "account.auth_type": setting({
    env: "TRADING_AUTH_TYPE",
    envAccount: true,
    default: "api_key",
    help: "How the credential is sent: api_key, bearer, basic or none.",
    more: "In the config file: each account's `auth.type`.",
    parse: oneOf(AUTH_TYPES),
  }),
  "account.api_key": setting({
    env: "TRADING_API_KEY",
    envAccount: true,
    secret: true,
    shown: "required for api_key",
    help: "The API key, or with TRADING_API_KEY_FILE a file holding it (re-read on reload).",
    more: "Sent on the private endpoints only. Give one of the two, not both. In the config file: `auth.key`.",
    parse: parseText,
  }),
  "account.api_key_header": setting({
    env: "TRADING_API_KEY_HEADER",
    envAccount: true,
    default: "X-Api-Key",
    help: "Header that carries the key.",
    more: "In the config file: `auth.header_name`.",
    parse: parseHeaderName,
  }),
  "account.bearer_token": setting({
    env: "TRADING_BEARER_TOKEN",
    envAccount: true,
    secret: true,
    shown: "required for bearer",
    help: "The token sent as Authorization: Bearer, or with TRADING_BEARER_TOKEN_FILE a file holding it.",
    more: "In the config file: `auth.token`.",
    parse: parseText,
  }),
  "account.basic_username": setting({
    env: "TRADING_BASIC_USERNAME",
    envAccount: true,
    shown: "required for basic",
    help: "The user name sent with Authorization: Basic.",
    more: "In the config file: `auth.username`.",
    parse: parseHeaderValue,
  }),
  "account.basic_password": setting({
    env: "TRADING_BASIC_PASSWORD",
    envAccount: true,
    secret: true,
    shown: "required for basic",
    help: "The password sent with Authorization: Basic, or with TRADING_BASIC_PASSWORD_FILE a file holding it.",
    more: "In the config file: `auth.password`.",
    parse: parseText,
  }),
  "venue.history_max_orders": setting({
    at: "venue.historyMaxOrders",
    env: "TRADING_HISTORY_MAX_ORDERS",
    default: 1000,
    help: "Most history orders read per scrape (paged with offset/limit), up to 1000000.",
    parse: positiveInt(1_000_000),
  }),
  "venue.history_page_size": setting({
    at: "venue.historyPageSize",
    env: "TRADING_HISTORY_PAGE_SIZE",
    default: 100,
    help: "limit of each history page, up to 100000.",
    more: "If your venue caps `limit` lower, set this to its cap.",
    parse: positiveInt(100_000),
  }),
  "venue.active_orders_limit": setting({
    at: "venue.activeOrdersLimit",
    env: "TRADING_ACTIVE_ORDERS_LIMIT",
    default: 1000,
    help: "Limit asked of the active-order list, up to 1000000.",
    more: "`trading_active_orders_truncated` says when it was reached.",
    parse: positiveInt(1_000_000),
  }),
  "venue.active_orders_limit_param": setting({
    at: "venue.activeOrdersLimitParam",
    env: "TRADING_ACTIVE_ORDERS_LIMIT_PARAM",
    default: "limit",
    help: "Query parameter that carries that limit (its name is not published).",
    parse: parseHeaderName,
  }),
  "venue.max_body_bytes": setting({
    at: "venue.maxBodyBytes",
    env: "TRADING_MAX_BODY_BYTES",
    default: 10 * 1024 * 1024,
    help: "Largest decoded venue answer accepted (10 MiB), up to 1 GiB.",
    more: "Larger answers fail with reason `too_large`.",
    parse: positiveInt(1024 * 1024 * 1024),
  }),
  "venue.max_items": setting({
    at: "venue.maxItems",
    env: "TRADING_MAX_ITEMS",
    default: 10_000,
    help: "Most items of one list (positions, orders, markets) read from one venue answer, up to 1000000.",
    more: 'An order list reads at least the limit it asked for. Items past it are not examined and are counted in `trading_exporter_invalid_fields_total{field="over_cap"}`.',
    parse: positiveInt(1_000_000),
  }),
  "venue.max_retry_after_seconds": setting({
    at: "venue.maxRetryAfterSeconds",
    env: "TRADING_MAX_RETRY_AFTER_SECONDS",
    default: 300,
    help: "Longest Retry-After honoured; a longer one is cut to this (0: never wait).",
    parse: seconds({ zero: true, max: SECONDS_MAX }),
  }),
  "venue.markets_cache_seconds": setting({
    at: "venue.marketsCacheSeconds",
    env: "TRADING_MARKETS_CACHE_SECONDS",
    default: 60,
    help: "How long the public market list is reused after a successful read (0: read every scrape).",
    more: "A failed read is kept no longer than `scrape.min_collection_interval_seconds`.",
    parse: seconds({ zero: true, max: SECONDS_MAX }),
  }),
  "scrape.min_collection_interval_seconds": setting({
    at: "scrape.minCollectionIntervalSeconds",
    env: "TRADING_MIN_COLLECTION_INTERVAL_SECONDS",
    default: 12,
    help: "A scrape less than this after the start of an account's last collection is answered from it (0: collect every scrape).",
    more: "Any number of scrapers, at any interval and phase, then cost the venue about one collection per account per this long. See [Several Prometheus servers](deployment.md#several-prometheus-servers-ha-pairs).",
    parse: seconds({ zero: true, max: SECONDS_MAX }),
  }),
  "scrape.default_timeout_seconds": setting({
    at: "scrape.defaultTimeoutSeconds",
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_SECONDS",
    default: 10,
    help: "Scrape deadline when Prometheus sends no X-Prometheus-Scrape-Timeout-Seconds, and every collection's own deadline.",
    more: "Within `scrape.max_timeout_seconds`; a scrape whose own deadline passes first is answered with the previous collection.",
    parse: seconds({ zero: false, max: SECONDS_MAX }),
  }),
  "scrape.timeout_offset_seconds": setting({
    at: "scrape.timeoutOffsetSeconds",
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_OFFSET_SECONDS",
    default: 0.5,
    help: "Subtracted from Prometheus's timeout header, so the answer arrives before it gives up.",
    parse: seconds({ zero: true, max: SECONDS_MAX }),
  }),
  "scrape.max_timeout_seconds": setting({
    at: "scrape.maxTimeoutSeconds",
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_MAX_SECONDS",
    default: 60,
    help: "Upper bound of a scrape's deadline, whatever the header says.",
    parse: seconds({ zero: false, max: SECONDS_MAX }),
  }),
  "scrape.max_in_flight": setting({
    at: "scrape.maxInFlight",
    startupOnly: true,
    flag: "web.max-requests",
    arg: "N",
    env: "TRADING_MAX_IN_FLIGHT_SCRAPES",
    default: 40,
    help: "Scrapes served at once, up to 100000 (0: no limit); past it a scrape is answered 503 at once.",
    more: "The flag is node_exporter's, with its meaning; `scrape.max_queued` lets some scrapes wait instead.",
    parse: countOrZero(100_000),
  }),
  "scrape.max_queued": setting({
    at: "scrape.maxQueued",
    startupOnly: true,
    flag: "scrape.max-queued",
    arg: "N",
    env: "TRADING_MAX_QUEUED_SCRAPES",
    default: 0,
    help: "Scrapes that may wait for a slot once the in-flight limit is reached, up to 1000000; past them 503 at once.",
    more: "A waiting scrape holds a socket, not a collection, for up to half its budget, then is answered 503. A burst of many probe targets (after a restart) then waits a moment instead of failing.",
    // 0 means none here, not "no limit" as for the in-flight scrapes.
    parse: wholeNumber(0, 1_000_000, "a whole number from 0 to 1000000"),
  }),
  "scrape.max_series": setting({
    at: "scrape.maxSeries",
    env: "TRADING_MAX_SERIES",
    default: 200_000,
    help: "Venue series per scrape, up to 100000000; the rest are dropped and counted.",
    more: "Neither the exporter's own series, the scrape's health (`trading_up`, `trading_scrape_*`, `trading_collection_timestamp_seconds`, `trading_market_list_age_seconds`) nor the alert thresholds (`trading_account_alert_threshold*`) are counted or dropped: the alerts read them. Drops are counted in `trading_exporter_series_dropped_total`.",
    parse: positiveInt(100_000_000),
  }),
  "scrape.max_order_outcome_series": setting({
    at: "scrape.maxOrderOutcomeSeries",
    env: "TRADING_MAX_ORDER_OUTCOME_SERIES",
    default: 1000,
    help: "Order-counter series per account, from 2 to 1000000; new ones past it count as other.",
    parse: wholeNumber(2, 1_000_000, "a whole number from 2 to 1000000"),
  }),
};

export type SettingId = keyof typeof SETTINGS;
type ValueOf<K extends SettingId> = (typeof SETTINGS)[K] extends Setting<infer T> ? T : never;
type AtOf<K extends SettingId> = (typeof SETTINGS)[K] extends { at?: infer A } ? A : never;
/** A section of the Config ("venue"): a field for each setting whose `at` is in it, of its parser's type. */
export type Section<S extends string> = { [K in SettingId as AtOf<K> extends `${S}.${infer F}` ? F : never]: NonNullable<ValueOf<K>> };
/** Every setting's resolved value (undefined: not given and no default). */
export type Values = { [K in SettingId]: ValueOf<K> | undefined };

/** The table as a list, in its order (which is the order of --help and the README). */
export const SETTING_LIST = Object.entries(SETTINGS) as Array<[SettingId, Setting<unknown>]>;

/**
 * Settings a release had and this one removed, by file key and variable: still accepted, so that a config
 * that carries one loads, with a one-line warning that says to delete it.
 */
export const REMOVED_SETTINGS = [
  { key: "venue.reuse_unchanged_bodies", env: "TRADING_REUSE_UNCHANGED_BODIES", why: "no effect since the venue client was rewritten" },
];

/** The start-up-only settings whose value differs between two configurations (a reload keeps the old one). */
export function startupOnlyChanges(before: object, after: object): SettingId[] {
  const differs = (at: string) => JSON.stringify(configValue(before, at)) !== JSON.stringify(configValue(after, at));
  return SETTING_LIST.flatMap(([id, s]) => (s.startupOnly && differs(s.at!) ? [id] : []));
}

/** Variables read elsewhere (the build's revision, branch, user and date; src/version.ts): known, so never warned about. */
const OTHER_VARIABLES = ["TRADING_EXPORTER_REVISION", "TRADING_EXPORTER_BRANCH", "TRADING_EXPORTER_BUILD_USER", "TRADING_EXPORTER_BUILD_DATE"];

/** Every TRADING_* name the exporter reads. */
export function knownVariables(): string[] {
  return [...SETTING_LIST.flatMap(([, s]) => (s.env === undefined ? [] : s.secret ? [s.env, `${s.env}_FILE`] : [s.env])), ...OTHER_VARIABLES];
}
