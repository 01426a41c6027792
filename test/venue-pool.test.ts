// The venue pool: venue.max_connections bounds the requests in flight to one origin, and each request that finds every
// connection busy is reported, as trading_exporter_venue_connection_waits_total counts it.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getBody, VenuePool } from "../src/venue/request.js";

/** A venue that holds every answer until `release()`, counting the requests it holds at once. */
async function holdingVenue() {
  const held: ServerResponse[] = [];
  let released = false;
  let most = 0;
  const server = createServer((_req, res) => {
    if (released) return void res.end("{}");
    held.push(res);
    most = Math.max(most, held.length);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/public/markets`,
    held: () => held.length,
    most: () => most,
    release() {
      released = true;
      for (const res of held.splice(0)) res.end("{}");
    },
    hold() {
      released = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** `batches` of five requests in turn on one pool, each batch answered before the next starts. */
async function fiveRequests(maxConnections: number, batches = 1) {
  const venue = await holdingVenue();
  let waits = 0;
  const pool = new VenuePool(maxConnections, () => waits++);
  stops.push(
    () => venue.close(),
    () => pool.close(100),
  );
  const get = () =>
    getBody({
      url: new URL(venue.url),
      headers: new Headers(),
      signal: AbortSignal.timeout(10_000),
      remainingMs: () => 10_000,
      maxBodyBytes: 1024,
      maxRetryAfterSeconds: 0,
      pool,
    });
  let bodies: string[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const answers = Array.from({ length: 5 }, get);
    await expect.poll(venue.held).toBe(Math.min(5, maxConnections));
    venue.release();
    bodies = (await Promise.all(answers)).map((body) => body.toString());
    venue.hold();
  }
  return { bodies, waits, most: venue.most() };
}

describe("the venue pool", () => {
  it("holds at most max_connections requests in flight to the venue and reports each one that waits for a connection", async () => {
    expect(await fiveRequests(2)).toEqual({ bodies: ["{}", "{}", "{}", "{}", "{}"], waits: 3, most: 2 });
  });

  it("counts the waits of a later batch as of the first: the connections the first held are free again", async () => {
    expect(await fiveRequests(2, 2)).toEqual({ bodies: ["{}", "{}", "{}", "{}", "{}"], waits: 6, most: 2 });
  });

  it("reports no wait while a connection is free for every request", async () => {
    expect(await fiveRequests(5)).toEqual({ bodies: ["{}", "{}", "{}", "{}", "{}"], waits: 0, most: 5 });
  });
});
