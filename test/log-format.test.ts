// Log lines in the shape Prometheus 3 writes (Go's slog): `time` in RFC 3339 UTC with milliseconds, `level` as a
// word, `msg`, then the fields, the same keys in JSON and in logfmt; logfmt flat, with no JSON text in any value.

import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startExporterChild } from "./helpers/child.js";
import { createLogger } from "../src/log.js";
import { redactor } from "./helpers/redactor.js";

const RFC3339_MS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function capture(format: "json" | "logfmt", secretHeaders: string[] = []) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger("debug", sink, secretHeaders, format, redactor), lines };
}

/** A logfmt line's pairs in order, values unquoted as slog quotes them (a Go-quoted string is a JSON string). */
function logfmtPairs(line: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const pair = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  let at = 0;
  for (let m = pair.exec(line); m !== null; m = pair.exec(line)) {
    expect(line.slice(at, m.index).trim(), `text between pairs in ${line}`).toBe("");
    pairs.push([m[1]!, m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!]);
    at = pair.lastIndex;
  }
  expect(line.slice(at).trim()).toBe("");
  return pairs;
}

/** Whether `value` is JSON text of an object or a list (`["…`, `{"…`). */
function holdsJson(value: string): boolean {
  if (!/^\s*[[{]/.test(value)) return false;
  try {
    JSON.parse(value);
    return true;
  } catch {
    return /^\s*[[{]\s*"/.test(value);
  }
}

const LISTENING = {
  url: "http://[::1]:9842/",
  urls: ["http://[::1]:9842/", "http://127.0.0.1:9842/"],
  accounts: ["main", "hedge"],
  shard: 0,
  totalShards: 1,
  version: "0.1.0",
};

afterEach(() => vi.restoreAllMocks());

describe("a JSON log line", () => {
  it("begins time, level, msg, level as a word, time in RFC 3339 UTC, and carries no pid, hostname or name", () => {
    const { logger, lines } = capture("json");
    logger.info(LISTENING, "listening");
    logger.debug("d");
    logger.warn({ problem: "p" }, "configuration warning");
    logger.error("e");
    const [first, ...rest] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(first!)).toEqual(["time", "level", "msg", "url", "urls", "accounts", "shard", "totalShards", "version"]);
    expect(first).toMatchObject({ level: "INFO", msg: "listening", urls: LISTENING.urls });
    expect(first!.time).toMatch(RFC3339_MS_UTC);
    expect(rest.map((r) => r.level)).toEqual(["DEBUG", "WARN", "ERROR"]);
  });

  it("cannot be given another time, level or msg by a field", () => {
    const { logger, lines } = capture("json");
    logger.warn({ level: "INFO", msg: "all is well", time: "then" }, "real message");
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "WARN", msg: "real message" });
  });
});

describe("a logfmt line", () => {
  it("has time=, level= as a word and msg= first, then flat fields: a list comma-joined, an IPv6 address as it is", () => {
    const { logger, lines } = capture("logfmt");
    logger.info(LISTENING, "listening");
    logger.warn({ settings: ["scrape.max_in_flight"], nested: { reason: "status 500", hosts: [{ name: "a" }] } }, "configuration warning");
    const first = logfmtPairs(lines[0]!);
    expect(first.map(([k]) => k)).toEqual(["time", "level", "msg", "url", "urls", "accounts", "shard", "totalShards", "version"]);
    expect(first[0]![1]).toMatch(RFC3339_MS_UTC);
    expect(Object.fromEntries(first)).toMatchObject({ level: "INFO", msg: "listening", url: "http://[::1]:9842/", accounts: "main,hedge" });
    expect(lines[0]).toContain(" urls=http://[::1]:9842/,http://127.0.0.1:9842/ ");
    expect(lines[1]).toMatch(
      /^time=\S+ level=WARN msg="configuration warning" settings=scrape\.max_in_flight nested\.reason="status 500" nested\.hosts\.0\.name=a$/,
    );
    for (const line of lines) expect(logfmtPairs(line).filter(([, v]) => holdsJson(v))).toEqual([]);
  });

  it("quotes as slog does: a value with a space, a quote, an = or a line break, and an empty one", () => {
    const { logger, lines } = capture("logfmt");
    logger.info({ a: "two words", b: 'say "x"', c: "k=v", d: "line\nbreak", e: "", f: "plain" }, "m");
    expect(lines[0]).toMatch(/ a="two words" b="say \\"x\\"" c="k=v" d="line\\nbreak" e="" f=plain$/);
  });

  it("is written from the call's values, not from JSON text parsed again", () => {
    const { logger, lines } = capture("logfmt");
    const parse = vi.spyOn(JSON, "parse");
    for (let i = 0; i < 10; i++) logger.info({ i, accounts: ["a", "b"] }, "line");
    expect(lines).toHaveLength(10);
    expect(parse).not.toHaveBeenCalled();
  });

  it("is redacted as a JSON line is: credential fields, secret headers, and known secrets anywhere", () => {
    redactor.hold(["log-format-secret-value-77"]);
    for (const format of ["json", "logfmt"] as const) {
      const { logger, lines } = capture(format, ["X-Desk-Key"]);
      logger.warn(
        { error: "echoed log-format-secret-value-77 back", headers: { "x-desk-key": "desk-value-nobody-knows" }, request: { token: "tok-nobody-knows" } },
        "venue endpoint failing",
      );
      expect(lines[0], format).not.toMatch(/log-format-secret-value-77|desk-value-nobody-knows|tok-nobody-knows/);
      expect(lines[0]!.match(/<secret>/g), format).toHaveLength(3);
    }
  });
});

describe("the exporter's own lines", () => {
  it.each(["json", "logfmt"] as const)("in %s: the listening line has an RFC 3339 time, the level INFO, and no JSON text in logfmt", async (format) => {
    const run = await startExporterChild(
      { TRADING_BASE_URL: "http://127.0.0.1:1", TRADING_API_KEY: "k", TRADING_COLLATERAL_IDS: "USDC,USDT", TRADING_LISTEN_ADDRESS: "127.0.0.1:0" },
      [`--log.format=${format}`],
    );
    run.child.kill("SIGTERM");
    await run.exited;
    const line = run.lines.find((l) => l.includes("listening"))!;
    if (format === "json") {
      expect(JSON.parse(line)).toMatchObject({ level: "INFO", msg: "listening", time: expect.stringMatching(RFC3339_MS_UTC) });
    } else {
      const pairs = Object.fromEntries(logfmtPairs(line));
      expect(pairs).toMatchObject({ level: "INFO", msg: "listening", time: expect.stringMatching(RFC3339_MS_UTC) });
      expect(logfmtPairs(line).filter(([, v]) => holdsJson(v))).toEqual([]);
    }
  });
});
