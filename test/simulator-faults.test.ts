// Every fault kind of the simulated venue, the fault control API, and closing with hung sockets.
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawRequest, type RawResponse } from "./helpers/raw-request.js";
import { startSimulator, type FaultSpec, type RunningSimulator } from "../tools/simulator/server.js";

const KEY = { "X-Api-Key": "sim-key" };
const ACTIVE = "/v1/private/orders/realtime";
const ACCOUNT = "/v1/private/account-info?collateralId=USDC";
const MiB = 1024 * 1024;

type Json = Record<string, unknown>;

let sim: RunningSimulator;

beforeEach(async () => {
  sim = await startSimulator({ tickMs: 0 });
});

afterEach(async () => {
  await sim.close();
});

function fetchRaw(path: string, timeoutMs = 5000): Promise<RawResponse> {
  return rawRequest(sim.url + path, { headers: KEY, timeoutMs });
}

async function withFault(fault: FaultSpec, path: string): Promise<RawResponse> {
  sim.setFaults([fault]);
  return fetchRaw(path);
}

function parse(res: RawResponse): unknown {
  return JSON.parse(res.body.toString("utf8"));
}

describe("fault kinds", () => {
  it("status answers the code with a JSON error and the Retry-After header verbatim", async () => {
    const res = await withFault({ endpoint: "orders_active", kind: "status", status: 429, retryAfter: "7" }, ACTIVE);
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("7");
    expect(typeof (parse(res) as Json).error).toBe("string");
    const plain = await withFault({ endpoint: "*", kind: "status", status: 503 }, "/v1/public/markets");
    expect(plain.status).toBe(503);
    expect(plain.headers["retry-after"]).toBeUndefined();
  });

  it("applies a counted fault to the next N requests only, and only to its endpoint", async () => {
    sim.setFaults([{ endpoint: "markets", kind: "status", status: 500, times: 2 }]);
    expect((await fetchRaw(ACTIVE)).status).toBe(200);
    expect((await fetchRaw("/v1/public/markets")).status).toBe(500);
    expect(sim.faults()).toEqual([{ endpoint: "markets", kind: "status", status: 500, times: 1 }]);
    expect((await fetchRaw("/v1/public/markets")).status).toBe(500);
    expect((await fetchRaw("/v1/public/markets")).status).toBe(200);
    expect(sim.faults()).toEqual([]);
  });

  it("latency delays a correct answer", async () => {
    const normal = await fetchRaw(ACTIVE);
    const res = await withFault({ endpoint: "orders_active", kind: "latency", latencyMs: 150 }, ACTIVE);
    expect(res.elapsedMs).toBeGreaterThanOrEqual(140);
    expect(res.body.equals(normal.body)).toBe(true);
  });

  it("trickle sends the correct body in many pieces over the given time", async () => {
    const normal = await fetchRaw(ACCOUNT);
    const res = await withFault({ endpoint: "account_info", kind: "trickle", latencyMs: 300 }, ACCOUNT);
    expect(res.body.equals(normal.body)).toBe(true);
    expect(res.chunks).toBeGreaterThan(5);
    expect(res.elapsedMs).toBeGreaterThanOrEqual(250);
  });

  it("hang never answers within the client's timeout", async () => {
    sim.setFaults([{ endpoint: "*", kind: "hang" }]);
    await expect(fetchRaw(ACTIVE, 200)).rejects.toMatchObject({ code: "ETIMEDOUT" });
  });

  it("reset destroys the socket without an answer", async () => {
    sim.setFaults([{ endpoint: "*", kind: "reset" }]);
    // A TCP reset surfaces as "read ECONNRESET"; a graceful close would be "socket hang up".
    await expect(fetchRaw(ACTIVE)).rejects.toMatchObject({ code: "ECONNRESET", message: expect.stringMatching(/ECONNRESET/) });
  });

  it("malformed_json answers 200 with a body that is not JSON", async () => {
    const res = await withFault({ endpoint: "orders_active", kind: "malformed_json" }, ACTIVE);
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(() => parse(res)).toThrow(SyntaxError);
  });

  it("truncated_json answers the first half of the correct body", async () => {
    const normal = await fetchRaw(ACTIVE);
    const res = await withFault({ endpoint: "orders_active", kind: "truncated_json" }, ACTIVE);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(Math.floor(normal.body.length / 2));
    expect(normal.body.subarray(0, res.body.length).equals(res.body)).toBe(true);
    expect(() => parse(res)).toThrow(SyntaxError);
  });

  it("wrong_types keeps the containers but no numeric field keeps its type", async () => {
    const orders = parse(await withFault({ endpoint: "orders_active", kind: "wrong_types" }, ACTIVE));
    expect(Array.isArray(orders)).toBe(true);
    for (const o of orders as Json[]) {
      for (const key of ["price", "quantity", "leverage", "createdAt"]) expect(typeof o[key], key).not.toBe("number");
      expect(typeof o.marketId).toBe("string");
    }
    const acc = parse(await withFault({ endpoint: "account_info", kind: "wrong_types" }, ACCOUNT)) as Json;
    expect(Array.isArray(acc.positions)).toBe(true);
    expect(String(acc.collateralBalance)).not.toMatch(/^-?\d+\.\d+$/);
    const kinds = new Set((orders as Json[]).flatMap((o) => [o.price, o.quantity].map((v) => (v === null ? "null" : typeof v))));
    expect(kinds.size).toBeGreaterThan(1);
  });

  it("missing_fields drops numeric and label fields", async () => {
    const orders = parse(await withFault({ endpoint: "orders_history", kind: "missing_fields" }, "/v1/private/orders/history")) as Json[];
    expect(orders).toHaveLength(25);
    for (const o of orders) for (const key of ["id", "marketId", "price", "quantity", "status"]) expect(o, key).not.toHaveProperty(key);
    const acc = parse(await withFault({ endpoint: "account_info", kind: "missing_fields" }, ACCOUNT)) as Json;
    expect(acc).not.toHaveProperty("collateralBalance");
    expect((acc.positions as Json[]).every((p) => !("maintenanceMargin" in p))).toBe(true);
  });

  it("wrong_container swaps arrays and objects", async () => {
    const orders = parse(await withFault({ endpoint: "*", kind: "wrong_container" }, ACTIVE));
    expect(Array.isArray(orders)).toBe(false);
    expect(typeof orders).toBe("object");
    expect(Array.isArray(parse(await fetchRaw(ACCOUNT)))).toBe(true);
  });

  it("oversized streams a valid JSON body of exactly the given size (12 MiB by default)", async () => {
    const res = await withFault({ endpoint: "orders_active", kind: "oversized" }, ACTIVE);
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(12 * MiB);
    expect(res.headers["content-length"]).toBeUndefined();
    expect(Array.isArray(parse(res))).toBe(true);
    const acc = await withFault({ endpoint: "account_info", kind: "oversized", bytes: MiB }, ACCOUNT);
    expect(acc.body.length).toBe(MiB);
    expect(typeof (parse(acc) as Json).collateralBalance).toBe("string");
  });

  it("empty_objects streams the list as empty objects, 9.9 MB by default, keeping account-info's other members", async () => {
    const res = await withFault({ endpoint: "orders_active", kind: "empty_objects" }, ACTIVE);
    expect(res.body.length).toBe(9_900_000);
    const list = parse(res) as Json[];
    expect(list.length).toBeGreaterThan(3_000_000);
    expect(list.every((item) => Object.keys(item).length === 0)).toBe(true);
    const acc = parse(await withFault({ endpoint: "account_info", kind: "empty_objects", bytes: MiB }, ACCOUNT)) as Json;
    expect(typeof acc.collateralBalance).toBe("string");
    expect((acc.positions as Json[]).length).toBeGreaterThan(300_000);
  });

  it("gzip_bomb sends a small gzip body that inflates beyond 10 MiB", async () => {
    const res = await withFault({ endpoint: "markets", kind: "gzip_bomb" }, "/v1/public/markets");
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.body.length).toBeLessThan(MiB);
    const inflated = gunzipSync(res.body);
    expect(inflated.length).toBeGreaterThan(10 * MiB);
    expect(inflated.length).toBe(64 * MiB);
  });

  it("redirect answers 302 with the default location, or the given status and location", async () => {
    const res = await withFault({ endpoint: "account_info", kind: "redirect" }, ACCOUNT);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("http://127.0.0.2:1/elsewhere");
    const custom = await withFault({ endpoint: "account_info", kind: "redirect", status: 307, location: "http://example.invalid/x" }, ACCOUNT);
    expect(custom.status).toBe(307);
    expect(custom.headers.location).toBe("http://example.invalid/x");
  });
});

describe("fault control", () => {
  async function control(method: string, body?: unknown): Promise<RawResponse> {
    return rawRequest(`${sim.url}/_sim/faults`, { method, body: body === undefined ? "" : JSON.stringify(body) });
  }

  it("PUT replaces, GET lists, DELETE clears, and a bad spec is a 400 naming the field", async () => {
    const faults: FaultSpec[] = [
      { endpoint: "markets", kind: "latency", latencyMs: 10 },
      { endpoint: "*", kind: "status", status: 418 },
    ];
    expect((await control("PUT", faults)).status).toBe(200);
    expect(parse(await control("GET"))).toEqual(faults);
    expect((await fetchRaw(ACTIVE)).status).toBe(418);
    expect((await control("PUT", [{ endpoint: "markets", kind: "status", status: 503 }])).status).toBe(200);
    expect((await fetchRaw(ACTIVE)).status).toBe(200);
    expect((await control("DELETE")).status).toBe(200);
    expect(parse(await control("GET"))).toEqual([]);
    const bad = await control("PUT", [{ endpoint: "markets", kind: "explode" }]);
    expect(bad.status).toBe(400);
    expect((parse(bad) as Json).error).toMatch(/faults\[0\]\.kind/);
    expect((await control("PUT", [{ endpoint: "nowhere", kind: "hang" }])).status).toBe(400);
    expect(() => sim.setFaults([{ endpoint: "markets", kind: "status", status: 9000 }])).toThrow(/status/);
  });

  it("takes initial faults from the options", async () => {
    const other = await startSimulator({ tickMs: 0, faults: [{ endpoint: "markets", kind: "status", status: 404 }] });
    try {
      expect((await rawRequest(`${other.url}/v1/public/markets`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it("close() ends hung connections at once", async () => {
    sim.setFaults([{ endpoint: "*", kind: "hang" }]);
    const pending = fetchRaw(ACTIVE, 5000);
    await expect.poll(() => sim.stats().requests.orders_active).toBe(1);
    const started = performance.now();
    await sim.close();
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });
});
