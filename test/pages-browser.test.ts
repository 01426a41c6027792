// The HTML pages under their default headers (Content-Security-Policy default-src 'self', X-Frame-Options DENY):
// headless Chromium renders the status page and the runbooks styled, and a 128-character market id from the
// venue stays inside its card on a phone and a desktop.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService, type Service } from "../src/lifecycle.js";
import { webGuards } from "../src/http/toolkit/guards.js";
import { chromiumMissing } from "./helpers/chromium.js";
import { type Browser, startBrowser } from "./helpers/chromium-page.js";
import { startTinyVenue, type TinyVenue } from "./helpers/tiny-venue.js";

/** A market id of 128 characters (the longest label value kept whole) with no place to break. */
const LONG_ID = `M${"W".repeat(127)}`;
const RUNBOOK = "/runbooks/TradingActiveOrderStuck";

let venue: TinyVenue | undefined;
let service: Service | undefined;
afterEach(async () => {
  await service?.close(1000);
  await venue?.close();
  service = undefined;
  venue = undefined;
});

/** The exporter on a venue whose one account holds a position in the long-named market; `guards` as a web config adds. */
async function start(guards?: import("express").RequestHandler[]): Promise<string> {
  venue = await startTinyVenue({
    account: {
      collateralBalance: "1000",
      availableMargin: "500",
      totalInvested: "500",
      totalMargin: "1000",
      totalUnrealizedPnl: "0",
      positions: [
        {
          marketId: LONG_ID,
          direction: "SHORT",
          size: "1",
          avgExecutionPrice: "100",
          marginAmount: "10",
          borrowedAmount: "0",
          leverage: "10",
          realizedPnl: "0",
          liquidationPrice: "104",
          maintenanceMargin: "5",
        },
      ],
    },
  });
  const config = configFromEnv({
    TRADING_BASE_URL: venue.url,
    TRADING_API_KEY: "k",
    TRADING_COLLATERAL_IDS: "USDC",
    TRADING_ACCOUNT: "desk",
    TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
  });
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  service = await startService(config, createLogger("info", quiet), {
    self: new SelfMetrics({ defaultMetrics: false }),
    ...(guards === undefined ? {} : { guards }),
  });
  // The status page shows what the last scrape collected.
  const metrics = await fetch(new URL("/metrics", service.server.url));
  expect(await metrics.text()).toContain(`market_id="${LONG_ID}"`);
  return service.server.url;
}

describe("the HTML pages' headers", () => {
  it("are CSP default-src 'self' and X-Frame-Options DENY by default, on the status page and the runbooks", async () => {
    const base = await start();
    for (const path of ["/", "/runbooks/", RUNBOOK]) {
      const res = await fetch(new URL(path, base));
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy"), path).toBe("default-src 'self'");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      const page = await res.text();
      expect(page, path).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=/i);
    }
    const css = await fetch(new URL("/runbooks/runbook.css", base));
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(await css.text()).toContain("max-width");
  });

  it("are the web config's where its headers set them", async () => {
    const base = await start(
      webGuards({
        tls: undefined,
        basicAuthUsers: {},
        headers: { "Content-Security-Policy": "default-src 'none'; style-src 'self'", "X-Frame-Options": "sameorigin" },
      }),
    );
    for (const path of ["/", RUNBOOK]) {
      const res = await fetch(new URL(path, base));
      expect(res.headers.get("content-security-policy"), path).toBe("default-src 'none'; style-src 'self'");
      expect(res.headers.get("x-frame-options"), path).toBe("sameorigin");
      await res.text();
    }
  });
});

const title = chromiumMissing
  ? "the HTML pages in headless Chromium: SKIPPED, /usr/bin/chromium is missing (apt-get install chromium)"
  : "the HTML pages in headless Chromium";

describe.skipIf(chromiumMissing)(title, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await startBrowser();
  }, 60_000);
  afterAll(() => browser?.close());

  it("render styled under the default headers, with no policy violation", async () => {
    const base = await start();
    const status = await browser.open(new URL("/", base).href, 1400, 900);
    // Computed from /status.css: a browser default would be 0px and no background.
    expect(await status.evaluate("getComputedStyle(document.querySelector('section.account')).borderTopLeftRadius")).toBe("10px");
    expect(await status.violations()).toEqual([]);
    const runbook = await browser.open(new URL(RUNBOOK, base).href, 1400, 900);
    // 52rem from runbook.css; a browser's default is none.
    expect(await runbook.evaluate("getComputedStyle(document.body).maxWidth")).toBe("832px");
    expect(await runbook.evaluate("getComputedStyle(document.querySelector('pre')).backgroundColor")).toBe("rgb(244, 244, 244)");
    expect(await runbook.violations()).toEqual([]);
  }, 120_000);

  it.each([390, 1400])(
    "keep a 128-character market id inside its card at %i px, isolated from the text around it",
    async (width) => {
      const base = await start();
      const page = await browser.open(new URL("/", base).href, width, 900);
      const boxes = await page.evaluate<{
        card: number[];
        id: number[];
        table: number[];
        isolate: string;
        page: number;
        window: number;
        text: string;
      }>(`(() => {
        const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; };
        const id = [...document.querySelectorAll("bdi")].find((e) => e.textContent === ${JSON.stringify(LONG_ID)});
        const card = id.closest("section.account");
        return {
          card: box(card), id: box(id), table: box(id.closest("table")), text: id.textContent,
          isolate: getComputedStyle(id).unicodeBidi,
          page: document.documentElement.scrollWidth, window: window.innerWidth,
        };
      })()`);
      const folder = mkdtempSync(join(tmpdir(), "status-long-id-"));
      const png = join(folder, `status-${width}.png`);
      writeFileSync(png, await page.screenshot());
      console.log(`status page with a 128-character market id at ${width} px: ${png}`);
      expect(boxes.text).toBe(LONG_ID);
      expect(boxes.isolate).toBe("isolate");
      const [cardLeft, cardRight] = boxes.card as [number, number];
      for (const inner of [boxes.id, boxes.table] as Array<[number, number]>) {
        expect(inner[0]).toBeGreaterThanOrEqual(cardLeft);
        expect(inner[1]).toBeLessThanOrEqual(cardRight);
      }
      // Nothing pushes the page sideways either.
      expect(boxes.page).toBeLessThanOrEqual(boxes.window);
    },
    120_000,
  );
});
