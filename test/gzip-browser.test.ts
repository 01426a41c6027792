// Headless Chromium as the judge of what a person sees: /metrics and /probe opened in a browser show
// the whole answer (a browser decodes only the first gzip member of a body).

import { afterEach, describe, expect, it } from "vitest";
import type { Answer } from "../src/metrics/answer.js";
import { chromiumMissing as missing, runChromium } from "./helpers/chromium.js";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** The page's DOM after load, as headless Chromium serializes it, with a fresh profile. */
async function dumpDom(url: string): Promise<string> {
  return (await runChromium(url, ["--dump-dom"])).stdout;
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
      let pinned: Promise<Answer> | undefined;
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
