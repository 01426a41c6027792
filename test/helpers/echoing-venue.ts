// A venue that echoes the credentials it is sent in every string of every answer (ids, labels, keys,
// rejection reasons, an error body), and what the exporter then shows of them: /metrics, each account's
// /probe and debug probe, the status page, and the log.

import { Writable } from "node:stream";
import type { Config } from "../../src/config/types.js";
import { createLogger } from "../../src/log.js";
import { SelfMetrics } from "../../src/metrics/self.js";
import { startService } from "../../src/lifecycle.js";
import { WINDOW } from "../../src/util/redact.js";
import { HISTORY, order, position, startTinyVenue } from "./tiny-venue.js";
import { redactor } from "./redactor.js";

/** Each way a venue may echo `secret`: whole, a 12-character run inside other text, with a suffix. */
function echoes(secret: string): string[] {
  return [secret, `x-${secret.slice(2, 14)}-y`, `${secret}/tail`];
}

/** Answers whose every string holds the secrets, as keys too; the history answers 500 with them in its body. */
function answers(secrets: readonly string[]) {
  const all = secrets.flatMap(echoes);
  const keyed = Object.fromEntries(all.map((s) => [s, s]));
  const echoingPosition = (s: string) => ({ ...keyed, ...position(s, { direction: s }) });
  const market = (s: string) => ({ ...keyed, id: s, name: s, assetId: s, collateralAssetId: s, status: s, metadataUrl: s, settings: { tickSize: 1 } });
  return {
    account: {
      ...keyed,
      collateralId: all[0],
      collateralBalance: "1",
      availableMargin: "1",
      totalInvested: "0",
      totalMargin: "1",
      totalUnrealizedPnl: "0",
      positions: all.map(echoingPosition),
    },
    active: all.map((s, i) =>
      order(i + 1, {
        ...keyed,
        id: s,
        accountId: s,
        marketId: s,
        type: s,
        side: s,
        direction: s,
        status: s,
        timeInForce: s,
        rejectionReason: { code: s, message: s },
      }),
    ),
    markets: all.map(market),
    raw: {
      [HISTORY]: { status: 500, headers: { "content-type": "application/json", "x-echo": secrets.join(",") }, body: JSON.stringify({ error: all, ...keyed }) },
    },
  };
}

/**
 * Serves `config` (its base_url replaced by the echoing venue's) against a venue echoing `secrets`,
 * and returns everything the exporter showed: /metrics, /probe and its debug report for each account, the status page
 * of what they collected, and the log. `echo` is how the venue writes a secret back (as it was sent, by default).
 */
export async function echoedEverywhere(
  secrets: readonly string[],
  config: (venueUrl: string) => Config,
  echo: (secret: string) => string = (secret) => secret,
): Promise<string> {
  const venue = await startTinyVenue(answers(secrets.map(echo)));
  const seen: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      seen.push(chunk.toString("utf8"));
      done();
    },
  });
  const built = config(venue.url);
  const service = await startService(built, createLogger("debug", sink, [], "json", redactor), { redactor, self: new SelfMetrics({ defaultMetrics: false }) });
  try {
    const paths = ["/metrics", ...built.accounts.flatMap((a) => [`/probe?target=${a.name}`, `/probe?target=${a.name}&debug=true`]), "/"];
    for (const path of paths) seen.push(await (await fetch(new URL(path, service.server.url))).text());
  } finally {
    await service.close(0);
    await venue.close();
  }
  return seen.join("\n");
}

/** Every WINDOW-character run of `secret` that `text` still holds. */
export function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let at = 0; at + WINDOW <= secret.length; at++) {
    const run = secret.slice(at, at + WINDOW);
    if (text.includes(run)) found.push(run);
  }
  return found;
}
