// docs/venue.md's Compatibility section is what the exporter sends: the requests of one collection, the headers of
// every request, and the credential header of each auth type, captured by a venue that records what reaches it.

import { createServer, type IncomingMessage, type Server } from "node:http";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { startService } from "../src/lifecycle.js";
import { configFromObject } from "./helpers/config-files.js";
import { outputBlocks, readDoc } from "./helpers/markdown-docs.js";

const DOC = "docs/venue.md";
const PAGE = 100;

interface Seen {
  line: string;
  headers: Record<string, string>;
}

/** A venue that records each request and answers the shapes the exporter reads; the history is one full page, then none. */
async function recordingVenue(): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]!.toLowerCase()] = req.rawHeaders[i + 1]!;
    seen.push({ line: `${req.method} ${req.url}`, headers });
    const url = new URL(req.url ?? "/", "http://venue");
    const history = url.pathname.endsWith("/history") && url.searchParams.get("offset") === "0";
    const body = url.pathname.endsWith("/account-info") ? {} : history ? Array.from({ length: PAGE }, (_, i) => ({ id: `o${i}` })) : [];
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/`, seen };
}

/** The requests one scrape of an exporter with this account sends. */
async function oneCollection(account: Record<string, unknown>): Promise<Seen[]> {
  const venue = await recordingVenue();
  const config = configFromObject(
    { venue: { base_url: venue.url }, web: { listen_address: "127.0.0.1:0" }, accounts: [{ name: "a", collateral_ids: ["USDC", "USDT"], ...account }] },
    {},
    "/",
  );
  const service = await startService(config, createLogger("silent"), { self: new SelfMetrics({ defaultMetrics: false }) });
  try {
    const res = await fetch(new URL("metrics", service.server.url));
    await res.text();
    return venue.seen;
  } finally {
    await service.close(1_000);
    venue.server.close();
  }
}

describe(`${DOC}: Compatibility`, () => {
  const doc = readDoc(DOC);
  const section = doc.slice(doc.indexOf("## Compatibility"));

  it("shows the requests of one collection as they are sent", async () => {
    const seen = await oneCollection({ auth: { type: "api_key", key: "KEY" } });
    const [shown] = outputBlocks(DOC, doc).filter((b) => b.source.startsWith("requests of one collection"));
    expect(shown).toBeDefined();
    expect(seen.map((s) => s.line).sort()).toEqual([...shown!.lines].sort());
  });

  it("names every header every request carries, and the extra headers and credential only on the private paths", async () => {
    const seen = await oneCollection({ auth: { type: "api_key", key: "KEY" }, headers: { "X-Desk": "alpha" } });
    for (const { line, headers } of seen) {
      const names = Object.keys(headers).filter((h) => !["x-api-key", "x-desk"].includes(h));
      expect(names.sort(), line).toEqual(["accept", "accept-encoding", "connection", "host"]);
      for (const name of names) expect(section.toLowerCase(), name).toContain(`\`${name}: `);
      expect(section).toContain(`\`Accept-Encoding: ${headers["accept-encoding"]}\``);
      const isPrivate = line.startsWith("GET /v1/private/");
      expect(headers["x-api-key"] === "KEY", line).toBe(isPrivate);
      expect(headers["x-desk"] === "alpha", line).toBe(isPrivate);
    }
  });

  it.each([
    ["api_key", { type: "api_key", key: "KEY" }, "x-api-key", "KEY", "`X-Api-Key: KEY`"],
    ["bearer", { type: "bearer", token: "TOKEN" }, "authorization", "Bearer TOKEN", "`Authorization: Bearer TOKEN`"],
    [
      "basic",
      { type: "basic", username: "USERNAME", password: "PASSWORD" },
      "authorization",
      `Basic ${Buffer.from("USERNAME:PASSWORD").toString("base64")}`,
      "`Authorization: Basic base64(USERNAME:PASSWORD)`",
    ],
    ["none", { type: "none" }, undefined, undefined, "none"],
  ])("shows the credential header of auth type %s", async (type, auth, header, value, shown) => {
    const seen = await oneCollection({ auth });
    const row = section.split("\n").find((l) => l.startsWith(`| \`${type}\` |`));
    expect(row, type).toContain(shown);
    for (const { line, headers } of seen.filter((s) => s.line.startsWith("GET /v1/private/"))) {
      if (header === undefined) expect(headers.authorization ?? headers["x-api-key"], line).toBeUndefined();
      else expect(headers[header], line).toBe(value);
    }
  });
});
