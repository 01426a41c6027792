// The demo has no config file to re-read: it answers POST /-/reload with 405, and the README's endpoint table says so.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it, onTestFinished } from "vitest";

const DEMO = new URL("../dist-tools/tools/demo.js", import.meta.url).pathname;

describe("the demo's POST /-/reload", () => {
  it("is refused with 405, as the README's endpoint table says", async () => {
    const child = spawn(process.execPath, [DEMO], {
      env: { PATH: process.env.PATH ?? "", TRADING_LISTEN_ADDRESS: "127.0.0.1:0", TRADING_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const match = /^exporter: +(\S+)$/.exec(line);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`the demo exited with ${code}`)));
    });
    const reload = await fetch(new URL("/-/reload", url), { method: "POST" });
    expect(reload.status).toBe(405);
    expect((await fetch(new URL("/-/healthy", url))).status).toBe(200);
    const row = readFileSync(new URL("../README.md", import.meta.url), "utf8")
      .split("\n")
      .find((line) => line.startsWith("| `POST /-/reload` |"));
    expect(row).toContain("Not in `npm run demo`");
    expect(row).toContain("405");
  });
});
