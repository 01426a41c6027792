// A log sink that fails never holds the process: a closed log pipe, then SIGTERM, and the exporter
// exits; a reader that stops reading blocks neither the event loop nor the exit.

import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { MAIN } from "./helpers/child.js";

const SINK = new URL("../dist/util/log-sink.js", import.meta.url).pathname;

let venue: RunningSimulator | undefined;
afterEach(async () => {
  await venue?.close();
  venue = undefined;
});

function exitOf(child: ReturnType<typeof spawn>): Promise<number | null> {
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return once(child, "exit").then(([code]) => code as number | null);
}

describe.each(["json", "logfmt"])("with --log.format=%s and the log pipe closed by its reader", (format) => {
  it("serves scrapes that log, then stops on SIGTERM", async () => {
    venue = await startSimulator({ apiKey: "k", tickMs: 0 });
    const env = {
      PATH: process.env.PATH ?? "",
      TRADING_BASE_URL: venue.url,
      TRADING_API_KEY: "k",
      TRADING_COLLATERAL_IDS: "USDC",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
      TRADING_LOG_LEVEL: "debug",
    };
    const child = spawn(process.execPath, [MAIN, `--log.format=${format}`], { env, stdio: ["ignore", "ignore", "pipe"] });
    const exited = exitOf(child);
    // Like `trading-exporter 2>&1 | head -1`: read the first line, then close the pipe.
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on("line", (line) => {
        const match = /url"?[=:]"?(http[^" ]+)/.exec(line);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`exporter exited with ${code}`)));
    });
    child.stderr!.destroy();
    // Failing endpoints log a warning each: every one now meets the closed pipe.
    venue.setFaults([{ endpoint: "*", kind: "status", status: 500 }]);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(new URL("metrics", url));
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("trading_up");
      venue.setFaults(i % 2 === 0 ? [] : [{ endpoint: "*", kind: "status", status: 500 }]);
    }
    child.kill("SIGTERM");
    // The documented bound is the scrape timeout maximum (10 s here) plus 10 s; a healthy stop takes well under it.
    const code = await Promise.race([exited, new Promise<"alive">((r) => setTimeout(() => r("alive"), 15_000).unref())]);
    expect(code).toBe(0);
  }, 30_000);
});

describe("a log reader that stops reading", () => {
  it("blocks neither the event loop nor the exit", async () => {
    // A child writes 5 MB of log lines into a pipe nobody reads, keeps ticking, then flushes and exits.
    const script = `
      const { LogSink } = await import(${JSON.stringify(SINK)});
      const sink = new LogSink(2);
      for (let i = 0; i < 50000; i++) sink.write("x".repeat(100) + "\\n");
      let ticks = 0;
      const timer = setInterval(() => ticks++, 10);
      await new Promise((r) => setTimeout(r, 500));
      clearInterval(timer);
      process.stdout.write(JSON.stringify({ ticks, dropped: sink.dropped }) + "\\n");
      await sink.flush(500);
      process.exit(0);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = exitOf(child);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const code = await Promise.race([exited, new Promise<"alive">((r) => setTimeout(() => r("alive"), 15_000).unref())]);
    expect(code).toBe(0);
    const report = JSON.parse(out) as { ticks: number; dropped: number };
    // 50 ticks were due; a blocked loop would show none. The queue bound dropped most of the 5 MB.
    expect(report.ticks).toBeGreaterThan(5);
    expect(report.dropped).toBeGreaterThan(30_000);
  }, 30_000);
});

describe.skipIf(!existsSync("/dev/full"))("a full disk (/dev/full as the log)", () => {
  it("drops and counts the lines it cannot write, never fails for good, and lets the process exit", async () => {
    const script = `
      const { LogSink } = await import(${JSON.stringify(SINK)});
      const sink = new LogSink(2);
      for (let i = 0; i < 100; i++) sink.write("line " + i + "\\n");
      await sink.flush(2000);
      const dropped = sink.dropped;
      sink.write("after\\n");
      await sink.flush(2000);
      process.stdout.write(JSON.stringify({ failed: sink.failed, dropped, after: sink.dropped }) + "\\n");
      process.exit(0);`;
    const fd = openSync("/dev/full", "w");
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", fd] });
    closeSync(fd);
    const exited = exitOf(child);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    expect(await exited).toBe(0);
    const report = JSON.parse(out) as { failed: boolean; dropped: number; after: number };
    // Every batch was refused (ENOSPC) and counted, and the sink kept trying: a disk that frees up gets the next lines.
    expect(report.failed).toBe(false);
    expect(report.dropped).toBeGreaterThan(0);
    expect(report.after).toBeGreaterThan(report.dropped);
  }, 30_000);
});

describe("a line the redacting transform cannot make safe", () => {
  it("is dropped and counted, never written as it came", async () => {
    const { LogSink } = await import("../src/util/log-sink.js");
    const { mkdtempSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const file = join(mkdtempSync(join(tmpdir(), "log-sink-")), "log");
    const fd = openSync(file, "w");
    onTestFinished(() => closeSync(fd));
    const sink = new LogSink(fd, (line) => {
      if (line.includes("secret-value")) throw new Error("cannot redact");
      return line;
    });
    sink.write('{"msg":"echoed secret-value"}\n');
    sink.write('{"msg":"plain"}\n');
    await sink.flush();
    expect(sink.dropped).toBe(1);
    expect(readFileSync(file, "utf8")).toBe('{"msg":"plain"}\n');
  });
});
