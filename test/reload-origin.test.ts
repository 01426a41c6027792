// POST /-/reload refuses a browser's cross-site request (another Origin, Sec-Fetch-Site: cross-site) with a 403
// and reloads nothing; a request without Origin (curl, Kubernetes' config reloaders) and the exporter's own page reload.

import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { configFromEnv } from "./helpers/env-config.js";
import { simEnv, startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** POST /-/reload with exactly `headers` (node:http adds no Origin or Sec-Fetch-* of its own, as curl does not). */
function postReload(base: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL("/-/reload", base), { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("POST /-/reload from a browser", () => {
  it("is 403 for another origin or a cross-site fetch, reloading nothing; served without Origin and from the exporter's own origin", async () => {
    let reads = 0;
    stack = await startStack({
      source: (url) => {
        reads++;
        return configFromEnv(simEnv(url));
      },
    });
    const base = stack.server.url;
    const own = new URL(base).origin;
    const startReads = reads;
    const refused: Array<[Record<string, string>, string]> = [
      [{ origin: "http://attacker.example" }, "refused: the request's Origin is not this exporter's own"],
      [{ origin: "null" }, "refused: the request's Origin is not this exporter's own"],
      // Same host, another port: another origin.
      [{ origin: `http://127.0.0.1:${Number(new URL(base).port) + 1}` }, "refused: the request's Origin is not this exporter's own"],
      // A no-cors fetch from another site, as a browser sends it.
      [
        { origin: "https://attacker.example", "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" },
        "refused: a cross-site browser request (Sec-Fetch-Site: cross-site)",
      ],
      [{ "sec-fetch-site": "cross-site" }, "refused: a cross-site browser request (Sec-Fetch-Site: cross-site)"],
    ];
    for (const [headers, reason] of refused) {
      const answer = await postReload(base, headers);
      expect([answer.status, answer.text], JSON.stringify(headers)).toEqual([403, `${reason}\n`]);
    }
    expect(reads).toBe(startReads);
    expect(stack.logs.filter((l) => l.includes("configuration reloaded"))).toEqual([]);

    // curl -X POST, a config reloader sidecar, and a form on the exporter's own page.
    for (const headers of [{}, { origin: own }, { origin: own, "sec-fetch-site": "same-origin" }]) {
      const answer = await postReload(base, headers);
      expect([answer.status, answer.text], JSON.stringify(headers)).toEqual([200, "configuration reloaded\n"]);
    }
    expect(reads).toBe(startReads + 3);
    expect(stack.logs.filter((l) => l.includes("configuration reloaded")).length).toBe(3);
  });
});
