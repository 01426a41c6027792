// The pool fetch decodes what the venue compresses, caps what it decodes, and never follows a redirect.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { poolFetch, pooledBody } from "../src/venue/pool-fetch.js";
import { Transport } from "../src/venue/transport.js";

let server: Server | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = transport = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x?y=1`);
}

const BODY = JSON.stringify({ hello: "venue", n: [1, 2, 3] });

describe("poolFetch", () => {
  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
    ["identity", (b: Buffer) => b],
  ])("decodes %s", async (encoding, encode) => {
    const url = await serve((req, res) => {
      expect(req.headers["accept-encoding"]).toContain("gzip");
      res.writeHead(200, encoding === "identity" ? {} : { "content-encoding": encoding });
      res.end(encode(Buffer.from(BODY)));
    });
    transport = new Transport();
    const res = await poolFetch(transport.request, 1_000_000)(new Request(url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    const body = pooledBody(res);
    expect(body && Buffer.concat(body.chunks, body.length).toString()).toBe(BODY);
  });

  it("stops a body that decodes past the cap", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(5_000_000, " ")));
    });
    transport = new Transport();
    await expect(poolFetch(transport.request, 1_000_000)(new Request(url))).rejects.toMatchObject({ reason: "too_large" });
  });

  it("answers a redirect as it is, without following it", async () => {
    let hits = 0;
    const url = await serve((_req, res) => {
      hits++;
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    });
    transport = new Transport();
    const res = await poolFetch(transport.request, 1_000_000)(new Request(url));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/elsewhere");
    expect(hits).toBe(1);
  });

  it("sends the request's headers and path", async () => {
    let seen: { url?: string | undefined; key?: string | undefined } = {};
    const url = await serve((req, res) => {
      seen = { url: req.url, key: req.headers["x-api-key"] as string };
      res.end("[]");
    });
    transport = new Transport();
    await poolFetch(transport.request, 1_000)(new Request(url, { headers: { "x-api-key": "k1" } }));
    expect(seen).toEqual({ url: "/v1/x?y=1", key: "k1" });
  });
});
