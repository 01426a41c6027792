// The text renderer against the Prometheus client for Node.js: byte-identical, but for its blank lines between
// families (ours writes none), for the golden fixtures and for arbitrary families (labels with
// escapes, absent labels, repeats, special values).

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Family } from "../src/metrics/family.js";
import { dedupeSeries } from "../src/metrics/exposition.js";
import { render as clientRender } from "./helpers/prometheus-client-render.js";
import { renderText } from "./helpers/render-text.js";
import { scrapeFromFixtures, collectFamilies } from "./helpers/fixtures.js";

/** The client's text without its blank lines between families (the empty exposition stays "\n"). */
async function render(families: readonly Family[]): Promise<string> {
  const text = await clientRender(families);
  return families.length === 0 ? text : text.replaceAll("\n\n", "\n");
}

/** The samples less those whose label set an earlier one has in Prometheus's identity ("" is absent) but spelt otherwise. */
function withoutRespelledRepeats(samples: Family["samples"]): Family["samples"] {
  const spelling = new Map<string, string>();
  return samples.filter((sample) => {
    const identity = JSON.stringify(sample.labels.map((l) => (l === "" ? null : l)));
    const spelt = JSON.stringify(sample.labels);
    const first = spelling.get(identity);
    if (first === undefined) spelling.set(identity, spelt);
    return first === undefined || first === spelt;
  });
}

describe("renderText", () => {
  it.each([
    [
      "detailed",
      {
        account: "a",
        accountInfos: [["USDC", "account-detailed.json"]],
        active: "orders-active.json",
        history: "orders-history.json",
        markets: "markets.json",
      },
    ],
    ["odd", { account: "o", accountInfos: [["USDC", "account-odd.json"]], active: "orders-odd.json", history: "orders-odd.json", markets: "markets-odd.json" }],
  ] as const)("matches the Prometheus client on the %s fixtures", async (_name, c) => {
    const families = collectFamilies((await scrapeFromFixtures({ ...c, accountInfos: c.accountInfos.map(([id, f]) => [id, f]) })).scrape);
    expect(renderText(families)).toBe(await render(families));
  });

  it("matches the Prometheus client on no families at all", async () => {
    expect(renderText([])).toBe(await render([]));
  });

  const labelValue = fc.oneof(fc.constant(null), fc.string({ maxLength: 12 }), fc.constantFrom('a"b', "c\\d", "e\nf", "", "é☃"));
  const family = fc
    .tuple(
      fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/),
      fc.string({ minLength: 1, maxLength: 30 }), // the client refuses an empty HELP; ours never is
      fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), { minLength: 0, maxLength: 4 }),
    )
    .chain(([name, help, labelNames]) =>
      fc.record({
        name: fc.constant(`t_${name}`),
        help: fc.constant(help),
        type: fc.constant("gauge" as const),
        labelNames: fc.constant(labelNames),
        samples: fc.array(
          fc.record({
            labels: fc.tuple(...labelNames.map(() => labelValue)),
            value: fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Infinity, -Infinity, 0, -0, 1e21, 5e-324)),
          }),
          { maxLength: 8 },
        ),
      }),
    );

  it("matches the Prometheus client on arbitrary families", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(family, { selector: (f) => f.name, maxLength: 4 }), async (families: Family[]) => {
        // The contract: dedupeSeries has left one sample per label set. An empty value is no label to
        // Prometheus and to the client, so a set differing from an earlier one only by "" against absent
        // is a repeat in another spelling, which no collector gives.
        const nonEmpty = dedupeSeries(
          families.map((f) => ({ ...f, samples: withoutRespelledRepeats(f.samples) })).filter((f) => f.samples.length > 0),
        ).families;
        expect(renderText(nonEmpty)).toBe(await render(nonEmpty));
      }),
      { numRuns: 300 },
    );
  });
});
