// Parsers for single configuration values: text from a flag or variable, or a YAML value from the file.

import { ConfigError, meantWord } from "./errors.js";
import { checkHeaderValue } from "./secret.js";
import { MAX_LABEL_VALUE_LENGTH } from "../util/label-text.js";

/** Text as given (flag, variable), or a YAML scalar turned to text; anything else is not accepted. */
function textOf(value: unknown, key: string, expected: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ConfigError(`${key}: expected ${expected}`);
}

export function parseText(value: unknown, key: string): string {
  const text = textOf(value, key, "text").trim();
  if (text === "") throw new ConfigError(`${key}: is empty`);
  return text;
}

/** Text sent as an HTTP header value (a basic-auth user name): no line break or other control character. */
export function parseHeaderValue(value: unknown, key: string): string {
  return checkHeaderValue(parseText(value, key), key);
}

function parseListenAddress(value: unknown, key: string): { host: string; port: number } {
  const expected = "host:port (e.g. 0.0.0.0:9842 or [::1]:9842)";
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(textOf(value, key, expected).trim());
  if (!match) throw new ConfigError(`${key}: expected ${expected}`);
  if (Number(match[3]) > 65535) throw new ConfigError(`${key}: port ${match[3]} is out of range: a port is 0 to 65535`);
  const host = match[1] ?? match[2] ?? "";
  return { host: host === "" ? "0.0.0.0" : host, port: Number(match[3]) };
}

/** An address given twice is refused, unless its port is 0 (each of those binds a port of its own). */
export function parseListenAddresses(value: unknown, key: string): Array<{ host: string; port: number }> {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [value];
  if (items.length === 0) throw new ConfigError(`${key}: expected at least one host:port`);
  const addresses = items.map((item, i) => parseListenAddress(item, items.length === 1 ? key : `${key}[${i}]`));
  const shown = addresses.filter((a) => a.port !== 0).map((a) => `${a.host}:${a.port}`);
  if (new Set(shown).size !== shown.length) throw new ConfigError(`${key}: lists an address twice`);
  return addresses;
}

function number(pattern: RegExp, expected: string, ok: (n: number) => boolean): (value: unknown, key: string) => number {
  return (value, key) => {
    const text = textOf(value, key, expected).trim();
    const n = pattern.test(text) ? Number(text) : Number.NaN;
    if (!ok(n)) throw new ConfigError(`${key}: expected ${expected}`);
    return n;
  };
}

export const wholeNumber = (min: number, max: number, expected: string) => number(/^\d+$/, expected, (n) => Number.isSafeInteger(n) && n >= min && n <= max);

export const countOrZero = (max: number) => wholeNumber(0, max, `a whole number from 0 (no limit) to ${max}`);

export const positiveInt = (max: number) => wholeNumber(1, max, `a whole number from 1 to ${max}`);

/** A path of plain segments (A-Z a-z 0-9 . _ ~ -), "." and ".." excepted: clients resolve those away before sending it. */
const PLAIN_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;
const isPlainPath = (path: string): boolean => PLAIN_PATH.test(path) && !/\/\.{1,2}(\/|$)/.test(path);

/** The exporter's other paths (http/app.ts; "/" is the status page): the telemetry path may not take one of them. */
const RESERVED_PATHS = ["/probe", "/sd", "/exporter-metrics", "/-/healthy", "/-/ready", "/-/reload", "/runbooks", "/status.css"];

export function parseTelemetryPath(value: unknown, key: string): string {
  const text = textOf(value, key, "a path").trim();
  if (text === "" || !isPlainPath(text)) throw new ConfigError(`${key}: expected a path such as /metrics (segments of A-Z a-z 0-9 . _ ~ -, no trailing /)`);
  const taken = RESERVED_PATHS.find((p) => text === p || (p === "/runbooks" && text.startsWith("/runbooks/")));
  if (taken !== undefined) throw new ConfigError(`${key}: ${taken} is another of the exporter's paths`);
  return text;
}

/** As Prometheus's --web.route-prefix: "trading", "/trading/" and "/trading" are all "/trading", and "" is "/". */
export function parseRoutePrefix(value: unknown, key: string): string {
  const prefix = `/${textOf(value, key, "a path")
    .trim()
    .replace(/^\/+|\/+$/g, "")}`;
  if (prefix !== "/" && !isPlainPath(prefix)) throw new ConfigError(`${key}: expected a path such as /trading (segments of A-Z a-z 0-9 . _ ~ -)`);
  return prefix;
}

/** As Prometheus's --web.external-url; its path is the default route prefix, so plain segments; kept ending in "/". */
export function parseExternalUrl(value: unknown, key: string): URL {
  const url = URL.parse(textOf(value, key, "a URL").trim());
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) throw new ConfigError(`${key}: expected an http:// or https:// URL`);
  if (url.username !== "" || url.password !== "") throw new ConfigError(`${key}: must not carry credentials`);
  if (url.search !== "" || url.hash !== "") throw new ConfigError(`${key}: must not carry a query or fragment`);
  const path = url.pathname.replace(/\/+$/, "");
  if (path !== "" && !isPlainPath(path)) throw new ConfigError(`${key}: its path must be segments of A-Z a-z 0-9 . _ ~ - (it is the route prefix)`);
  url.pathname = `${path}/`;
  return url;
}

/** An http(s) URL with no credentials in it, ending in "/" so the venue's paths resolve under it. */
export function parseBaseUrl(value: unknown, key: string): URL {
  const url = URL.parse(textOf(value, key, "a URL").trim());
  if (url === null) throw new ConfigError(`${key}: not a valid URL`);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${key}: must be an http:// or https:// URL`);
  if (url.username !== "" || url.password !== "") throw new ConfigError(`${key}: must not carry credentials; configure the account's auth instead`);
  if (url.search !== "" || url.hash !== "") throw new ConfigError(`${key}: must not carry a query or fragment`);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

export const seconds = ({ zero, max }: { zero: boolean; max: number }) =>
  number(/^\d+(\.\d+)?$/, zero ? `a number of seconds from 0 to ${max}` : `a positive number of seconds up to ${max}`, (n) => n <= max && (zero || n > 0));

export function parseIdList(value: unknown, key: string): string[] {
  const list: unknown[] | undefined = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : undefined;
  const ids = list?.map((v) => (typeof v === "string" || typeof v === "number" ? String(v).trim() : "")) ?? [];
  if (ids.length === 0 || ids.includes(""))
    throw new ConfigError(`${key}: expected a ${typeof value === "string" ? "comma-separated " : ""}list of non-empty ids`);
  if (new Set(ids).size !== ids.length) throw new ConfigError(`${key}: lists an id twice`);
  // An id is a label value, which is never cut: two long ids could otherwise become one series.
  if (ids.some((id) => id.length > MAX_LABEL_VALUE_LENGTH)) throw new ConfigError(`${key}: an id is longer than ${MAX_LABEL_VALUE_LENGTH} characters`);
  return ids;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the HTTP client sets per request and per connection: one given by hand makes every private call fail. */
const CLIENT_HEADERS = /^(connection|content-length|expect|host|keep-alive|proxy-connection|te|trailer|transfer-encoding|upgrade)$/i;

export function parseHeaderName(value: unknown, key: string): string {
  const text = textOf(value, key, "an HTTP header name");
  if (!TOKEN.test(text)) throw new ConfigError(`${key}: not a valid HTTP header name`);
  if (CLIENT_HEADERS.test(text)) throw new ConfigError(`${key}: set by the HTTP client for each request, so it cannot be configured`);
  return text;
}

/** The `account` label value: the same rule for the config file's `name` and TRADING_ACCOUNT. */
export function parseAccountName(value: unknown, key: string): string {
  const text = textOf(value, key, "a name");
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(text)) throw new ConfigError(`${key}: must be 1-64 letters, digits or _ . : -`);
  return text;
}

export function oneOf<const T extends string>(words: readonly T[], { anyCase = false } = {}): (value: unknown, key: string) => T {
  return (value, key) => {
    const text = typeof value === "string" ? value.trim() : undefined;
    const word = words.find((w) => w === (anyCase ? text?.toLowerCase() : text));
    if (word !== undefined) return word;
    const guess = text === undefined ? undefined : meantWord(text, words);
    throw new ConfigError(`${key}: expected one of ${words.join(", ")}${guess === undefined ? "" : ` (did you mean ${guess}?)`}`);
  };
}

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

export const LOG_FORMATS = ["json", "logfmt"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function parseBoolean(value: unknown, key: string): boolean {
  if (typeof value === "boolean") return value;
  const text = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new ConfigError(`${key}: expected true or false`);
}

/** Most shards accepted: far above any sensible split, low enough that a typo is caught. */
export const MAX_TOTAL_SHARDS = 10_000;

/** A number, or a StatefulSet pod name ending in it (`trading-exporter-2` is 2): the downward API's metadata.name passes as is. */
export function parseShard(value: unknown, key: string): number {
  const text = typeof value === "string" || typeof value === "number" ? String(value).trim() : "";
  const match = /^(?:[A-Za-z0-9][A-Za-z0-9.-]*-)?(\d{1,9})$/.exec(text);
  if (match === null) throw new ConfigError(`${key}: expected a shard number from 0, or a StatefulSet pod name ending in -NUMBER`);
  return Number(match[1]);
}
