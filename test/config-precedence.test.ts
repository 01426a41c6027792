// Precedence flag > environment > file > default: for every setting of the table at the level of the
// configuration, and for each setting with all three sources by its effect on a running exporter
// started from a file on port 0.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import bcrypt from "bcryptjs";
import { stringify } from "yaml";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseCommandLine } from "../src/cli/flags.js";
import { ConfigFile } from "../src/config/file.js";
import { buildConfig } from "../src/config/load.js";
import { SETTING_LIST } from "../src/config/settings.js";
import type { Config } from "../src/config/types.js";
import { MAIN } from "./helpers/child.js";

const ACCOUNTS = [{ name: "a", collateral_ids: ["X"], auth: { type: "none" } }];

/** A value for the file, another for the variable and (where there is a flag) a third for the flag. */
const SAMPLES: Record<string, [file: unknown, env: string, flag?: string]> = {
  "web.listen_address": ["127.0.0.2:1", "127.0.0.3:2", "127.0.0.1:3"],
  "web.systemd_socket": [true, "false", "true"],
  "web.telemetry_path": ["/from-file", "/from-env", "/from-flag"],
  "web.disable_exporter_metrics": [true, "false", "true"],
  "web.external_url": ["http://file.example/a/", "http://env.example/b/", "https://flag.example/c/"],
  "web.route_prefix": ["/from-file", "/from-env", "/from-flag"],
  "web.config_file": ["/from/file.yml", "/from/env.yml", "/from/flag.yml"],
  "web.max_connections": [100, "200", "300"],
  "web.idle_timeout_seconds": [30, "45"],
  "web.write_timeout_seconds": [90, "100"],
  "web.read_timeout_seconds": [20, "25"],
  "log.level": ["warn", "error", "debug"],
  "log.format": ["logfmt", "json", "logfmt"],
  "venue.base_url": ["http://file.example/", "http://env.example/"],
  "venue.history_max_orders": [7, "8"],
  "venue.history_page_size": [9, "10"],
  "venue.active_orders_limit": [11, "12"],
  "venue.active_orders_limit_param": ["max", "count"],
  "venue.max_body_bytes": [1000, "2000"],
  "venue.max_items": [30, "40"],
  "venue.max_retry_after_seconds": [0, "5"],
  "venue.markets_cache_seconds": [0, "30"],
  "venue.max_connections": [8, "9", "10"],
  "venue.max_requests_per_second": [50, "60", "70"],
  "scrape.min_collection_interval_seconds": [0, "5"],
  "scrape.default_timeout_seconds": [3, "4"],
  "scrape.timeout_offset_seconds": [0, "1.5"],
  "scrape.max_timeout_seconds": [20, "30"],
  "scrape.max_in_flight": [2, "3", "0"],
  "scrape.max_series": [500, "600"],
  "scrape.max_order_outcome_series": [50, "60"],
};

const READ: Record<string, (c: Config) => unknown> = {
  "web.listen_address": (c) => c.listenAddresses,
  "web.systemd_socket": (c) => c.web.systemdSocket,
  "web.telemetry_path": (c) => c.web.telemetryPath,
  "web.disable_exporter_metrics": (c) => c.web.disableExporterMetrics,
  "web.external_url": (c) => c.externalUrl?.href,
  "web.route_prefix": (c) => c.routePrefix,
  "web.config_file": (c) => c.webConfigFile,
  "web.max_connections": (c) => c.web.maxConnections,
  "web.idle_timeout_seconds": (c) => c.web.idleTimeoutSeconds,
  "web.write_timeout_seconds": (c) => c.web.writeTimeoutSeconds,
  "web.read_timeout_seconds": (c) => c.web.readTimeoutSeconds,
  "log.level": (c) => c.logLevel,
  "log.format": (c) => c.logFormat,
  "venue.base_url": (c) => c.venue.baseUrl.href,
  "venue.history_max_orders": (c) => c.venue.historyMaxOrders,
  "venue.history_page_size": (c) => c.venue.historyPageSize,
  "venue.active_orders_limit": (c) => c.venue.activeOrdersLimit,
  "venue.active_orders_limit_param": (c) => c.venue.activeOrdersLimitParam,
  "venue.max_body_bytes": (c) => c.venue.maxBodyBytes,
  "venue.max_items": (c) => c.venue.maxItems,
  "venue.max_retry_after_seconds": (c) => c.venue.maxRetryAfterSeconds,
  "venue.markets_cache_seconds": (c) => c.venue.marketsCacheSeconds,
  "venue.max_connections": (c) => c.venue.maxConnections,
  "venue.max_requests_per_second": (c) => c.venue.maxRequestsPerSecond,
  "scrape.min_collection_interval_seconds": (c) => c.scrape.minCollectionIntervalSeconds,
  "scrape.default_timeout_seconds": (c) => c.scrape.defaultTimeoutSeconds,
  "scrape.timeout_offset_seconds": (c) => c.scrape.timeoutOffsetSeconds,
  "scrape.max_timeout_seconds": (c) => c.scrape.maxTimeoutSeconds,
  "scrape.max_in_flight": (c) => c.scrape.maxInFlight,
  "scrape.max_series": (c) => c.scrape.maxSeries,
  "scrape.max_order_outcome_series": (c) => c.scrape.maxOrderOutcomeSeries,
};

function fileWith(id: string, value: unknown): ConfigFile {
  const data: Record<string, Record<string, unknown> | unknown[]> = { venue: { base_url: "http://base.example/" }, accounts: ACCOUNTS };
  if (value !== undefined) {
    const [section, key] = id.split(".") as [string, string];
    data[section] = { ...(data[section] as Record<string, unknown>), [key]: value };
  }
  return new ConfigFile(data, "/");
}

const normal = (value: unknown): unknown => (value instanceof URL ? value.href : value);

describe("precedence of every setting in the table", () => {
  // A setting with no place in the Config (accepted, without effect) has no value to read back.
  const fileSettings = SETTING_LIST.filter(([, s]) => s.file && s.at !== undefined);

  it("has a sample for every setting the file can hold", () => {
    expect(fileSettings.map(([id]) => id).filter((id) => SAMPLES[id] === undefined || READ[id] === undefined)).toEqual([]);
  });

  it.each(fileSettings)("%s: default < file < environment < flag", (id, setting) => {
    const [inFile, inEnv, inFlag] = SAMPLES[id]!;
    const read = READ[id]!;
    const load = (file: unknown, env: Record<string, string>, flags: Record<string, string> = {}) =>
      read(buildConfig({ env, flags }, fileWith(id, file)).config);
    if (!setting.required) expect(load(undefined, {})).toEqual(normal(setting.default));
    expect(load(inFile, {})).toEqual(normal(setting.parse(inFile, id)));
    expect(load(inFile, { [setting.env!]: inEnv })).toEqual(normal(setting.parse(inEnv, setting.env!)));
    expect(load(inFile, { [setting.env!]: inEnv })).not.toEqual(load(inFile, {}));
    if (setting.flag !== undefined) {
      expect(load(inFile, { [setting.env!]: inEnv }, { [setting.flag]: inFlag! })).toEqual(normal(setting.parse(inFlag, setting.flag)));
      expect(load(inFile, { [setting.env!]: inEnv }, { [setting.flag]: inFlag! })).not.toEqual(load(inFile, { [setting.env!]: inEnv }));
    }
  });

  it("venue.reuse_unchanged_bodies, removed: accepted from the file and the variable with a warning each, with no place in the configuration", () => {
    const loaded = buildConfig({ env: { TRADING_REUSE_UNCHANGED_BODIES: "true" } }, fileWith("venue.reuse_unchanged_bodies", false));
    expect(loaded.config).toEqual(buildConfig({ env: {} }, fileWith("venue.reuse_unchanged_bodies", undefined)).config);
    expect(loaded.warnings).toEqual([
      "venue.reuse_unchanged_bodies: removed (no effect since the venue client was rewritten), ignored; delete it",
      "TRADING_REUSE_UNCHANGED_BODIES: removed (no effect since the venue client was rewritten), ignored; delete it",
    ]);
  });

  it("scrape.max_queued, removed: refused from the file and the variable, each in one line that says why", () => {
    const why = "removed: a scrape waiting for the venue no longer holds a slot of --web.max-requests, so there is no line to size; delete it";
    expect(() => buildConfig({ env: { TRADING_MAX_QUEUED_SCRAPES: "334" } }, fileWith("scrape.max_queued", 334))).toThrowError(
      `TRADING_MAX_QUEUED_SCRAPES: ${why}\nscrape.max_queued: ${why}`,
    );
    expect(parseCommandLine(["--scrape.max-queued=334"]).problems).toEqual([`command line: --scrape.max-queued: ${why}`]);
  });

  it("names the source of a bad value: the flag, the variable or the key", () => {
    const bad =
      (file: unknown, env: Record<string, string>, flags: Record<string, string> = {}) =>
      () =>
        buildConfig({ env, flags }, fileWith("log.format", file));
    expect(bad("xml", {})).toThrowError("log.format: expected one of json, logfmt");
    expect(bad("json", { TRADING_LOG_FORMAT: "xml" })).toThrowError("TRADING_LOG_FORMAT: expected one of json, logfmt");
    expect(bad("json", {}, { "log.format": "xml" })).toThrowError("--log.format: expected one of json, logfmt");
    // A word near an accepted one is named.
    expect(bad("json", { TRADING_LOG_FORMAT: "logfnt" })).toThrowError("TRADING_LOG_FORMAT: expected one of json, logfmt (did you mean logfmt?)");
  });
});

// ---- the same, by effect, on the built exporter started from a file ----

const DIR = mkdtempSync(join(tmpdir(), "te-precedence-"));
const HASH = bcrypt.hashSync("pw", 4);
writeFileSync(join(DIR, "auth.yml"), stringify({ basic_auth_users: { u: HASH } }));
writeFileSync(join(DIR, "open.yml"), "# nothing turned on\n");

function configFile(extra: Record<string, unknown>): string {
  const path = join(DIR, `config-${Math.random().toString(36).slice(2)}.yml`);
  // An unreachable venue: a scrape still collects (every endpoint failing) and logs at debug.
  writeFileSync(path, stringify({ venue: { base_url: "http://127.0.0.1:9/" }, accounts: ACCOUNTS, ...extra }));
  return path;
}

interface Running {
  url: string;
  lines: string[];
  stop(): Promise<void>;
}

/** Starts dist/main.js and waits for its "listening" line, in JSON or logfmt. */
async function start(file: string, env: Record<string, string>, argv: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [MAIN, `--config.file=${file}`, ...argv], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const lines: string[] = [];
  const exited = once(child, "exit");
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      lines.push(line);
      const match = /"url":"([^"]+)"|url=(\S+)/.exec(line);
      if (match) resolve((match[1] ?? match[2])!);
    });
    void exited.then(() => reject(new Error(`exporter exited: ${lines.join("\n")}`)));
  });
  return {
    url,
    lines,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function scrape(run: Running): Promise<number> {
  const res = await fetch(new URL("/metrics", run.url));
  await res.arrayBuffer();
  return res.status;
}

describe("settings with a flag, a variable and a file key, by their effect", () => {
  it("web.listen_address: the exporter binds where the winning source says (port 0)", async () => {
    const file = configFile({ web: { listen_address: "127.0.0.2:0" } });
    const cases: Array<[Record<string, string>, string[], string]> = [
      [{}, [], "127.0.0.2"],
      [{ TRADING_LISTEN_ADDRESS: "127.0.0.3:0" }, [], "127.0.0.3"],
      [{ TRADING_LISTEN_ADDRESS: "127.0.0.3:0" }, ["--web.listen-address=127.0.0.1:0"], "127.0.0.1"],
    ];
    for (const [env, argv, host] of cases) {
      const run = await start(file, env, argv);
      expect(new URL(run.url).hostname).toBe(host);
      expect(await scrape(run)).toBe(200);
      await run.stop();
    }
  });

  it("log.level: debug lines appear only when the winning source says debug", async () => {
    const file = configFile({ web: { listen_address: "127.0.0.1:0" }, log: { level: "debug" } });
    const debugLines = async (env: Record<string, string>, argv: string[] = []) => {
      const run = await start(file, env, argv);
      await scrape(run);
      await run.stop();
      return run.lines.filter((l) => l.includes('"level":"DEBUG"')).length;
    };
    expect(await debugLines({})).toBeGreaterThan(0);
    expect(await debugLines({ TRADING_LOG_LEVEL: "info" })).toBe(0);
    expect(await debugLines({ TRADING_LOG_LEVEL: "info" }, ["--log.level=debug"])).toBeGreaterThan(0);
  });

  it("log.format: the lines are logfmt or JSON as the winning source says", async () => {
    const file = configFile({ web: { listen_address: "127.0.0.1:0" }, log: { format: "logfmt" } });
    const firstLine = async (env: Record<string, string>, argv: string[] = []) => {
      const run = await start(file, env, argv);
      await run.stop();
      return run.lines[0]!;
    };
    expect(await firstLine({})).toMatch(/^time=\S+ level=INFO /);
    expect(JSON.parse(await firstLine({ TRADING_LOG_FORMAT: "json" }))).toMatchObject({ level: "INFO" });
    expect(await firstLine({ TRADING_LOG_FORMAT: "json" }, ["--log.format=logfmt"])).toMatch(/^time=\S+ level=INFO /);
  });

  it("web.config_file: basic auth is asked for only when the winning source names a file that turns it on", async () => {
    // Relative to the config file's folder, as the file's other paths are.
    const file = configFile({ web: { listen_address: "127.0.0.1:0", config_file: "auth.yml" } });
    const status = async (env: Record<string, string>, argv: string[] = []) => {
      const run = await start(file, env, argv);
      const code = await scrape(run);
      await run.stop();
      return code;
    };
    expect(await status({})).toBe(401);
    expect(await status({ TRADING_WEB_CONFIG_FILE: join(DIR, "open.yml") })).toBe(200);
    expect(await status({ TRADING_WEB_CONFIG_FILE: join(DIR, "open.yml") }, [`--web.config.file=${join(DIR, "auth.yml")}`])).toBe(401);
  });
});
