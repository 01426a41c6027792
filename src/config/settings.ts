// The one table of settings; the file loader, the environment, the flags, --help and docs/configuration.md read it.

import { AUTH_TYPES } from "./auth-schemes.js";
import { valueAt } from "./errors.js";
import * as v from "./values.js";

/** A table row. account.* is the environment's one account (no config file); config.* and sharding.* are per process; the rest are file keys too, at their id. */
interface Declared {
  env?: string;
  /** The flag as --help writes it, without dashes: `name=ARG`, or `name` alone for a switch (`--name`, `--no-name`, as kingpin's Bool). */
  flag?: string;
  /** The flag may be repeated (kingpin's Strings): the parser gets the list. */
  repeatable?: true;
  /** A secret: the variable, or `<variable>_FILE` naming a file that holds it. */
  secret?: true;
  required?: true;
  /** Its place in a Config when not its id in camel case ("venue.baseUrl"); false (and account.) for no field of its own. */
  at?: string | false;
  /** Read at start-up only (every web. and log. setting is): a reload that changes it says the change waits for a restart. */
  startupOnly?: true;
  default?: unknown;
  /** The default as --help and docs/configuration.md show it, when not the default's own text (required for an object default). */
  shown?: string;
  /** One sentence for --help; `more` is added in docs/configuration.md. */
  help: string;
  more?: string;
  /** One parser whatever the source: text from a flag or variable, a YAML value from the file. */
  parse(value: unknown, where: string): unknown;
}

const SECONDS_MAX = 86_400;

export const SETTINGS = {
  "config.file": {
    at: false,
    flag: "config.file=PATH",
    env: "TRADING_CONFIG_FILE",
    shown: "none: the environment",
    help: "YAML config file of the venue and its accounts.",
    parse: v.parseText,
  },
  "web.listen_address": {
    at: "listenAddresses",
    flag: "web.listen-address=HOST:PORT",
    repeatable: true,
    env: "TRADING_LISTEN_ADDRESS",
    default: v.parseListenAddresses("0.0.0.0:9842", "default"),
    shown: "0.0.0.0:9842",
    help: "Address to serve on; repeat the flag to serve on several.",
    more: "`[::1]:9842` for IPv6, `:9842` for all interfaces. The variable takes a comma-separated list, the file key one address or a list.",
    parse: v.parseListenAddresses,
  },
  "web.systemd_socket": {
    flag: "web.systemd-socket",
    env: "TRADING_WEB_SYSTEMD_SOCKET",
    default: false,
    help: "Serve on the sockets systemd passes (socket activation) instead of the listen addresses.",
    more: "Read from `LISTEN_FDS` and `LISTEN_PID`, as the exporter-toolkit does; the exporter stops at start-up if there are none.",
    parse: v.parseBoolean,
  },
  "web.telemetry_path": {
    flag: "web.telemetry-path=PATH",
    env: "TRADING_WEB_TELEMETRY_PATH",
    default: "/metrics",
    help: "Path under which the metrics are served.",
    more: "Under the route prefix; `/metrics` answers 404 once it moved.",
    parse: v.parseTelemetryPath,
  },
  "web.external_url": {
    at: "externalUrl",
    flag: "web.external-url=URL",
    env: "TRADING_WEB_EXTERNAL_URL",
    shown: "none: as each request reached it",
    help: "URL under which the exporter is reached, behind a reverse proxy; its path is the default route prefix.",
    more: "As Prometheus's flag. `/sd` gives its scheme, host and path to Prometheus. See [Reverse proxy](reverse-proxy.md).",
    parse: v.parseExternalUrl,
  },
  "web.route_prefix": {
    at: "routePrefix",
    flag: "web.route-prefix=PATH",
    env: "TRADING_WEB_ROUTE_PREFIX",
    shown: "the external URL's path, or /",
    help: "Prefix of every path served, pages, /-/healthy and the telemetry path included.",
    more: "As Prometheus's flag: outside it every path is 404.",
    parse: v.parseRoutePrefix,
  },
  "web.disable_exporter_metrics": {
    flag: "web.disable-exporter-metrics",
    env: "TRADING_WEB_DISABLE_EXPORTER_METRICS",
    default: false,
    help: "Leave the process and Node.js runtime metrics out of the telemetry path.",
    more: "No `process_*` or `nodejs_*` series; the `trading_exporter_*` ones stay, as the alerts read them.",
    parse: v.parseBoolean,
  },
  "web.config_file": {
    at: "webConfigFile",
    flag: "web.config.file=PATH",
    env: "TRADING_WEB_CONFIG_FILE",
    shown: "none: plain HTTP, no auth",
    help: "Exporter-toolkit style file for TLS and basic auth of the exporter itself.",
    more: "In the config file, relative to the file's folder. See [Securing the exporter](security.md#securing-the-exporter).",
    parse: v.parseText,
  },
  "web.max_connections": {
    flag: "web.max-connections=N",
    env: "TRADING_WEB_MAX_CONNECTIONS",
    default: 512,
    help: "Connections to the exporter open at once on each listener, up to 1000000; past it one not being answered is closed for a new one, else the new one.",
    more: "Prometheus's default. [Closes](security.md#connections) counted in `trading_exporter_http_connections_dropped_total`; keep it under the open-files limit.",
    parse: v.positiveInt(1_000_000),
  },
  "web.idle_timeout_seconds": {
    env: "TRADING_WEB_IDLE_TIMEOUT_SECONDS",
    default: 65,
    help: "An idle keep-alive connection to the exporter is closed after this long.",
    more: "Longer than the scrape interval, so Prometheus reuses its connection.",
    parse: v.seconds({ zero: false, max: SECONDS_MAX }),
  },
  "web.write_timeout_seconds": {
    env: "TRADING_WEB_WRITE_TIMEOUT_SECONDS",
    default: 120,
    help: "A response unfinished this long after its request has its connection closed (Go's WriteTimeout).",
    parse: v.seconds({ zero: false, max: SECONDS_MAX }),
  },
  "web.read_timeout_seconds": {
    env: "TRADING_WEB_READ_TIMEOUT_SECONDS",
    default: 30,
    help: "A request body not in this long after its head loses its connection.",
    parse: v.seconds({ zero: false, max: SECONDS_MAX }),
  },
  "log.level": {
    at: "logLevel",
    flag: "log.level=LEVEL",
    env: "TRADING_LOG_LEVEL",
    default: "info",
    help: "debug, info, warn or error, in any case (WARN as the log writes it).",
    more: "`debug` also logs one line per collection: accounts, series and time taken.",
    parse: v.oneOf(v.LOG_LEVELS, { anyCase: true }),
  },
  "log.format": {
    at: "logFormat",
    flag: "log.format=FORMAT",
    env: "TRADING_LOG_FORMAT",
    default: "json",
    help: "json or logfmt: one line per event on stderr, with Prometheus's keys (time, level, msg).",
    more: "See [Logging](logging.md).",
    parse: v.oneOf(v.LOG_FORMATS),
  },
  "sharding.shard": {
    flag: "shard=I",
    env: "TRADING_SHARD",
    default: 0,
    help: "This replica's shard, from 0: it serves only the accounts whose name hashes to it.",
    more: "A StatefulSet pod name ending in `-I` is shard I (`trading-exporter-2` is 2), so `metadata.name` can be passed. See [Sharding](deployment.md#sharding-accounts-over-replicas).",
    parse: v.parseShard,
  },
  "sharding.total_shards": {
    flag: "total-shards=N",
    env: "TRADING_TOTAL_SHARDS",
    default: 1,
    help: `Number of replicas the accounts are split over, up to ${v.MAX_TOTAL_SHARDS}; 1 serves every account.`,
    more: "An account belongs to shard (first 8 bytes of SHA-256(name), big-endian) mod N; `--config.check` prints each account's shard.",
    parse: v.positiveInt(v.MAX_TOTAL_SHARDS),
  },
  "venue.base_url": {
    env: "TRADING_BASE_URL",
    required: true,
    help: "Base URL of the venue; the /v1/... paths are appended to it.",
    more: "Must be `http(s)://`, with no credentials, query or fragment in it.",
    parse: v.parseBaseUrl,
  },
  "account.name": {
    env: "TRADING_ACCOUNT",
    default: "default",
    help: "Value of the account label (1-64 of A-Z a-z 0-9 _ . : -).",
    more: "In the config file: each account's `name`.",
    parse: v.parseAccountName,
  },
  "account.collateral_ids": {
    env: "TRADING_COLLATERAL_IDS",
    required: true,
    help: "Comma-separated collateral ids; one account-info call per id per collection.",
    more: "In the config file: each account's `collateral_ids`, a list or one such string.",
    parse: v.parseIdList,
  },
  "account.auth_type": {
    env: "TRADING_AUTH_TYPE",
    default: "api_key",
    help: "How the credential is sent: api_key, bearer, basic or none.",
    more: "In the config file: each account's `auth.type`.",
    parse: v.oneOf(AUTH_TYPES),
  },
  "account.api_key": {
    env: "TRADING_API_KEY",
    secret: true,
    shown: "required for api_key",
    help: "The API key, or with TRADING_API_KEY_FILE a file holding it (re-read on reload).",
    more: "Sent on the private endpoints only. Give one of the two, not both. In the config file: `auth.key`.",
    parse: v.parseText,
  },
  "account.api_key_header": {
    env: "TRADING_API_KEY_HEADER",
    default: "X-Api-Key",
    help: "Header that carries the key.",
    more: "In the config file: `auth.header_name`.",
    parse: v.parseHeaderName,
  },
  "account.bearer_token": {
    env: "TRADING_BEARER_TOKEN",
    secret: true,
    shown: "required for bearer",
    help: "The token sent as Authorization: Bearer, or with TRADING_BEARER_TOKEN_FILE a file holding it.",
    more: "In the config file: `auth.token`.",
    parse: v.parseText,
  },
  "account.basic_username": {
    env: "TRADING_BASIC_USERNAME",
    shown: "required for basic",
    help: "The user name sent with Authorization: Basic.",
    more: "In the config file: `auth.username`.",
    parse: v.parseHeaderValue,
  },
  "account.basic_password": {
    env: "TRADING_BASIC_PASSWORD",
    secret: true,
    shown: "required for basic",
    help: "The password sent with Authorization: Basic, or with TRADING_BASIC_PASSWORD_FILE a file holding it.",
    more: "In the config file: `auth.password`.",
    parse: v.parseText,
  },
  "venue.history_max_orders": {
    env: "TRADING_HISTORY_MAX_ORDERS",
    default: 1000,
    help: "Most history orders read per scrape (paged with offset/limit), up to 1000000.",
    parse: v.positiveInt(1_000_000),
  },
  "venue.history_page_size": {
    env: "TRADING_HISTORY_PAGE_SIZE",
    default: 100,
    help: "limit of each history page, up to 100000.",
    more: "If your venue caps `limit` lower, set this to its cap.",
    parse: v.positiveInt(100_000),
  },
  "venue.active_orders_limit": {
    env: "TRADING_ACTIVE_ORDERS_LIMIT",
    default: 1000,
    help: "Limit asked of the active-order list, up to 1000000.",
    more: "`trading_active_orders_truncated` says when it was reached.",
    parse: v.positiveInt(1_000_000),
  },
  "venue.active_orders_limit_param": {
    env: "TRADING_ACTIVE_ORDERS_LIMIT_PARAM",
    default: "limit",
    help: "Query parameter that carries that limit (its name is not published).",
    parse: v.parseHeaderName,
  },
  "venue.max_body_bytes": {
    env: "TRADING_MAX_BODY_BYTES",
    default: 10 * 1024 * 1024,
    help: "Largest decoded venue answer accepted (10 MiB), up to 1 GiB.",
    more: "Larger answers fail with reason `too_large`.",
    parse: v.positiveInt(1024 * 1024 * 1024),
  },
  "venue.max_items": {
    env: "TRADING_MAX_ITEMS",
    default: 10_000,
    help: "Most items of one list (positions, orders, markets) read from one venue answer, up to 1000000.",
    more: 'An order list reads at least the limit it asked for. Items past it are not examined and are counted in `trading_exporter_invalid_fields_total{field="over_cap"}`.',
    parse: v.positiveInt(1_000_000),
  },
  "venue.max_retry_after_seconds": {
    env: "TRADING_MAX_RETRY_AFTER_SECONDS",
    default: 300,
    help: "Longest Retry-After honoured; a longer one is cut to this (0: never wait).",
    parse: v.seconds({ zero: true, max: SECONDS_MAX }),
  },
  "venue.max_connections": {
    startupOnly: true,
    flag: "venue.max-connections=N",
    env: "TRADING_VENUE_MAX_CONNECTIONS",
    default: 128,
    help: "Connections (so requests in flight) to a venue origin, up to 1024; more wait.",
    more: "Waits: `trading_exporter_venue_connection_waits_total`. [Sizing](performance.md#venue-latency).",
    parse: v.positiveInt(1024),
  },
  "venue.max_requests_per_second": {
    startupOnly: true,
    flag: "venue.max-requests-per-second=N",
    env: "TRADING_VENUE_MAX_REQUESTS_PER_SECOND",
    default: 0,
    help: "Requests a second to the venue, all accounts together, up to 100000 (0: no limit); the rest wait their turn.",
    more: "Spaced evenly, collections taken in turn. Waits: `trading_exporter_venue_budget_waits_total`. [Sizing](performance.md#a-venues-request-budget).",
    parse: v.countOrZero(100_000),
  },
  "venue.markets_cache_seconds": {
    env: "TRADING_MARKETS_CACHE_SECONDS",
    default: 60,
    help: "How long the public market list is reused after a successful read (0: read every scrape).",
    more: "A failed read is kept no longer than `scrape.min_collection_interval_seconds`.",
    parse: v.seconds({ zero: true, max: SECONDS_MAX }),
  },
  "scrape.min_collection_interval_seconds": {
    env: "TRADING_MIN_COLLECTION_INTERVAL_SECONDS",
    default: 12,
    help: "A scrape that arrives less than this after the start of an account's last collection is answered from it, however long it then waits for a slot (0: collect every scrape).",
    more: "Any number of scrapers, at any interval and phase, then cost the venue about one collection per account per this long. See [Several Prometheus servers](deployment.md#several-prometheus-servers-ha-pairs).",
    parse: v.seconds({ zero: true, max: SECONDS_MAX }),
  },
  "scrape.default_timeout_seconds": {
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_SECONDS",
    default: 10,
    help: "Scrape deadline when Prometheus sends no X-Prometheus-Scrape-Timeout-Seconds, and every collection's own deadline.",
    more: "Within `scrape.max_timeout_seconds`; a scrape whose own deadline passes first is answered with the endpoints done.",
    parse: v.seconds({ zero: false, max: SECONDS_MAX }),
  },
  "scrape.timeout_offset_seconds": {
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_OFFSET_SECONDS",
    default: 0.5,
    help: "Subtracted from Prometheus's timeout header, so the answer arrives before it gives up.",
    parse: v.seconds({ zero: true, max: SECONDS_MAX }),
  },
  "scrape.max_timeout_seconds": {
    startupOnly: true,
    env: "TRADING_SCRAPE_TIMEOUT_MAX_SECONDS",
    default: 60,
    help: "Upper bound of a scrape's deadline, whatever the header says.",
    parse: v.seconds({ zero: false, max: SECONDS_MAX }),
  },
  "scrape.max_in_flight": {
    startupOnly: true,
    flag: "web.max-requests=N",
    env: "TRADING_MAX_IN_FLIGHT_SCRAPES",
    default: 40,
    help: "Answers rendered and compressed at once, up to 100000 (0: no limit); a scrape waiting for the venue holds none.",
    more: "Unlike node_exporter's, it counts work, not requests. Past it a scrape waits within its deadline, then gets 503.",
    parse: v.countOrZero(100_000),
  },
  "scrape.max_series": {
    env: "TRADING_MAX_SERIES",
    default: 200_000,
    help: "Venue series per scrape, up to 100000000; the rest are dropped and counted.",
    more: "Neither the exporter's own series, the scrape's health (`trading_up`, `trading_scrape_*`, `trading_collection_timestamp_seconds`, `trading_market_list_age_seconds`) nor the alert thresholds (`trading_account_alert_threshold*`) are counted or dropped: the alerts read them. Drops are counted in `trading_exporter_series_dropped_total`.",
    parse: v.positiveInt(100_000_000),
  },
  "scrape.max_order_outcome_series": {
    env: "TRADING_MAX_ORDER_OUTCOME_SERIES",
    default: 1000,
    help: "Order-counter series per account, from 2 to 1000000; new ones past it count as other.",
    parse: v.wholeNumber(2, 1_000_000, "a whole number from 2 to 1000000"),
  },
} as const satisfies Record<string, Declared>;

export type SettingId = keyof typeof SETTINGS;
type Entry<K extends SettingId> = (typeof SETTINGS)[K];
type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type AtOf<K extends SettingId> =
  Entry<K> extends { at: infer A extends string } ? A : Entry<K> extends { at: false } ? never : K extends `account.${string}` ? never : Camel<K>;
/** A setting's value: its parser's type, or undefined when it may be left unset. */
type ValueOf<K extends SettingId> = ReturnType<Entry<K>["parse"]> | (Entry<K> extends { default: unknown } | { required: true } ? never : undefined);
/** The fields of a Config section ("venue"; "" for the top level), each of its setting's type. */
export type Section<S extends string> = {
  [K in SettingId as AtOf<K> extends `${S}${S extends "" ? "" : "."}${infer F}` ? (F extends `${string}.${string}` ? never : F) : never]: ValueOf<K>;
};
/** Every setting's resolved value (undefined: not given and no default). */
export type Values = { [K in SettingId]: ReturnType<Entry<K>["parse"]> | undefined };

/** Each setting with the fields a reader needs filled in: where it sits in a Config (`at`), its flag's name and argument. */
export const SETTING_LIST = Object.entries(SETTINGS as Record<SettingId, Declared>).map(([id, s]) => {
  const [flag, arg] = s.flag?.split("=") ?? [];
  const [section] = id.split(".");
  const envAccount = section === "account";
  const at = s.at === false || envAccount ? undefined : (s.at ?? id.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
  const startupOnly = s.startupOnly ?? /^(web|log)\./.test(id);
  const file = !envAccount && section !== "config" && section !== "sharding";
  const shown = s.shown ?? (s.default === undefined ? "required" : String(s.default));
  return [id as SettingId, { ...s, envAccount, file, flag, arg, switch: flag !== undefined && arg === undefined, at, startupOnly, shown }] as const;
});

/** Settings a release had and this one removed: a config that has one loads with a warning to delete it, or, `refused`, fails in one line saying why. */
export const REMOVED_SETTINGS = [
  { key: "venue.reuse_unchanged_bodies", env: "TRADING_REUSE_UNCHANGED_BODIES", why: "no effect since the venue client was rewritten" },
  {
    key: "scrape.max_queued",
    env: "TRADING_MAX_QUEUED_SCRAPES",
    flag: "scrape.max-queued",
    why: "a scrape waiting for the venue no longer holds a slot of --web.max-requests, so there is no line to size",
    refused: true,
  },
] satisfies Array<{ key: string; env: string; flag?: string; why: string; refused?: true }>;

/** The start-up-only settings whose value differs between two configurations (a reload keeps the old one). */
export function startupOnlyChanges(before: object, after: object): SettingId[] {
  const differs = (at: string) => JSON.stringify(valueAt(before, at.split("."))) !== JSON.stringify(valueAt(after, at.split(".")));
  return SETTING_LIST.flatMap(([id, s]) => (s.startupOnly && differs(s.at!) ? [id] : []));
}

/** Variables read elsewhere (the build's revision, branch, user and date; src/version.ts): known, so never warned about. */
const OTHER_VARIABLES = ["TRADING_EXPORTER_REVISION", "TRADING_EXPORTER_BRANCH", "TRADING_EXPORTER_BUILD_USER", "TRADING_EXPORTER_BUILD_DATE"];

export function knownVariables(): string[] {
  return [...SETTING_LIST.flatMap(([, s]) => (s.env === undefined ? [] : s.secret ? [s.env, `${s.env}_FILE`] : [s.env])), ...OTHER_VARIABLES];
}
