// Headless Chromium (Debian's /usr/bin/chromium) with a fresh profile per run, for tests of what a person sees.

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = "/usr/bin/chromium";
export const chromiumMissing = !existsSync(CHROMIUM);

export interface ChromiumRun {
  stdout: string;
  stderr: string;
}

/** Runs headless Chromium on `url` with `extra` flags (--dump-dom, --screenshot=...); the profile is removed after. */
export function runChromium(url: string, extra: string[]): Promise<ChromiumRun> {
  const profile = mkdtempSync(join(tmpdir(), "chromium-"));
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
    ...extra,
    url,
  ];
  return new Promise<ChromiumRun>((resolve, reject) => {
    execFile(CHROMIUM, args, { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) return resolve({ stdout, stderr });
      reject(new Error(`chromium failed: ${stderr.trim().split("\n").pop()}`));
    });
  }).finally(() => rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
}
