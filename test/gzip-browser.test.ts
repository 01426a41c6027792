// Headless Chromium as the judge of what a person sees: /metrics and /probe opened in a browser show
// the whole answer (a browser decodes only the first gzip member of a body).

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScrapeOutput } from "../src/exporter.js";
import { startStack, type Stack } from "./helpers/stack.js";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);

let stack: Stack | undefined;
let profile: string | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
  if (profile !== undefined) rmSync(profile, { recursive: true, force: true });
  profile = undefined;
});

/** The page's DOM after load, as headless Chromium serializes it, with a fresh profile. */
function dumpDom(url: string): Promise<string> {
  profile = mkdtempSync(join(tmpdir(), "chromium-"));
  const args = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    "--dump-dom",
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, args, { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout);
      reject(new Error(`chromium --dump-dom failed: ${stderr.trim().split("\n").pop()}`));
    });
  });
}

const unescapeHtml = (html: string) => html.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

const title = missing ? "headless Chromium: SKIPPED, /usr/bin/chromium is missing (apt-get install chromium)" : "headless Chromium";

describe.skipIf(missing)(title, () => {
  it.each(["/metrics", "/probe?target=sim"])(
    "shows the whole of %s, down to its last line",
    async (path) => {
      stack = await startStack();
      // Chromium's scrape and the identity one below get the same output, as scrapes joining one collection do.
      const exporter = stack.exporter;
      const metrics = exporter.metrics.bind(exporter);
      let pinned: Promise<ScrapeOutput> | undefined;
      exporter.metrics = (deadline, options) => {
        pinned ??= metrics(deadline, options);
        return pinned;
      };
      const url = new URL(path, stack.server.url);
      const page = unescapeHtml(await dumpDom(url.href));
      const identity = await (await stack.get(path, { "accept-encoding": "identity" })).text();
      const lines = identity.trimEnd().split("\n");
      expect(lines.length).toBeGreaterThan(100);
      expect(lines.at(-1)).toMatch(/^trading_/);
      expect(page).toContain(lines[0]);
      expect(page).toContain(lines.at(-1));
      const shown = lines.filter((line) => page.includes(line)).length;
      expect(shown).toBe(lines.length);
    },
    90_000,
  );
});
