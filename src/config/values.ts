// Parsers for single configuration values, shared by the environment and the config file.

import { ConfigError } from "./errors.js";

export function parseListenAddress(text: string, key: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) {
    throw new ConfigError(`${key}: expected host:port (e.g. 0.0.0.0:9842 or [::1]:9842)`);
  }
  const host = match[1] ?? match[2] ?? "";
  return { host: host === "" ? "0.0.0.0" : host, port };
}

/** An http(s) URL with no credentials in it, ending in "/" so the venue's paths resolve under it. */
export function parseBaseUrl(text: string, key: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ConfigError(`${key}: not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${key}: must be an http:// or https:// URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(`${key}: must not carry credentials; configure the account's auth instead`);
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigError(`${key}: must not carry a query or fragment`);
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

export function parsePositiveInt(text: string, key: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new ConfigError(`${key}: expected a whole number from 1 to ${max}`);
  }
  return n;
}

export function parsePositiveSeconds(text: string, key: string): number {
  const n = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${key}: expected a positive number of seconds`);
  return n;
}

export function parseSecondsOrZero(text: string, key: string): number {
  const n = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isFinite(n)) throw new ConfigError(`${key}: expected a number of seconds, 0 or more`);
  return n;
}

/** A comma list of ids: no empty entries, no repeats. */
export function parseIdList(text: string, key: string): string[] {
  const ids = text.split(",").map((s) => s.trim());
  if (ids.some((id) => id === "")) throw new ConfigError(`${key}: expected a comma-separated list of non-empty ids`);
  if (new Set(ids).size !== ids.length) throw new ConfigError(`${key}: lists an id twice`);
  return ids;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseHeaderName(text: string, key: string): string {
  if (!TOKEN.test(text)) throw new ConfigError(`${key}: not a valid HTTP header name`);
  return text;
}

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function parseLogLevel(text: string, key: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === text.trim());
  if (level === undefined) throw new ConfigError(`${key}: expected one of ${LOG_LEVELS.join(", ")}`);
  return level;
}

export function parseBoolean(text: string, key: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new ConfigError(`${key}: expected true or false`);
}
