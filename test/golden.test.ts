// Fixture payloads in, the full exposition out, compared with the golden files in test/golden/.
// Regenerate after a deliberate change with `npm run golden:update` and review the diff.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderText } from "./helpers/render-text.js";
import { CASES } from "./helpers/fixture-cases.js";
import { scrapeFromFixtures, collectFamilies } from "./helpers/fixtures.js";

describe("golden exposition", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(`${name} matches test/golden/${name}.prom`, async () => {
      const text = renderText(collectFamilies((await scrapeFromFixtures(c)).scrape));
      const file = new URL(`./golden/${name}.prom`, import.meta.url);
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, text);
      // A missing golden file fails: a new case is written by `npm run golden:update`, never by a plain run.
      expect(existsSync(file), `test/golden/${name}.prom is missing; run npm run golden:update and review it`).toBe(true);
      expect(text).toBe(readFileSync(file, "utf8"));
    });
  }
});
