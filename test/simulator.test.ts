// The simulated venue's endpoints, authentication, paging, determinism, ticks, scenarios and request stats.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawRequest } from "./helpers/raw-request.js";
import { resolveConfig } from "../tools/simulator/config.js";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../tools/simulator/server.js";
import { MARKET_SETTINGS, POSITION_NUMBERS } from "../src/venue/snapshot.js";

const KEY = { "X-Api-Key": "sim-key" };
const DECIMAL = /^-?\d+\.\d+$/;
const POSITION_FIELDS = ["marketId", "direction", ...POSITION_NUMBERS];
const SETTINGS_FIELDS = MARKET_SETTINGS;
const ORDER_FIELDS: Record<string, string> = {
  id: "string",
  accountId: "string",
  marketId: "string",
  type: "string",
  side: "string",
  direction: "string",
  status: "string",
  isPendingExpiration: "boolean",
  isPendingCancellation: "boolean",
  isPendingRejection: "boolean",
  price: "number",
  quantity: "number",
  quantityLocked: "number",
  quantityFilled: "number",
  leverage: "number",
  slippage: "number",
  postOnly: "boolean",
  timeInForce: "string",
  clientTimestamp: "number",
  createdAt: "number",
  updatedAt: "number",
  expiresAt: "number",
};

type Json = Record<string, unknown>;

let sim: RunningSimulator;
const extra: RunningSimulator[] = [];

async function start(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const s = await startSimulator({ tickMs: 0, ...opts });
  extra.push(s);
  return s;
}

async function get(path: string, headers: Record<string, string> = KEY, on: RunningSimulator = sim) {
  const res = await rawRequest(on.url + path, { headers });
  const text = res.body.toString("utf8");
  return { status: res.status, text, json: JSON.parse(text) as unknown };
}

async function getArray(path: string, on: RunningSimulator = sim): Promise<Json[]> {
  const res = await get(path, KEY, on);
  expect(res.status).toBe(200);
  expect(Array.isArray(res.json)).toBe(true);
  return res.json as Json[];
}

async function account(collateralId: string, on: RunningSimulator = sim): Promise<Json> {
  const res = await get(`/v1/private/account-info?collateralId=${collateralId}`, KEY, on);
  expect(res.status).toBe(200);
  return res.json as Json;
}

function marginRatio(acc: Json): number {
  const positions = acc.positions as Json[];
  const mm = positions.reduce((sum, p) => sum + Number(p.maintenanceMargin), 0);
  return mm / Number(acc.totalMargin);
}

async function post(path: string, body?: unknown) {
  const res = await rawRequest(sim.url + path, { method: "POST", body: body === undefined ? "" : JSON.stringify(body) });
  return { status: res.status, json: JSON.parse(res.body.toString("utf8")) as unknown };
}

beforeEach(async () => {
  sim = await startSimulator({ tickMs: 0 });
});

afterEach(async () => {
  await Promise.all([sim.close(), ...extra.splice(0).map((s) => s.close())]);
});

describe("account-info", () => {
  it("answers the detailed shape with decimal strings and consistent totals", async () => {
    const acc = await account("USDC");
    expect(Object.keys(acc).sort()).toEqual(["availableMargin", "collateralBalance", "positions", "totalInvested", "totalMargin", "totalUnrealizedPnl"]);
    for (const key of ["collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"]) {
      expect(acc[key], key).toMatch(DECIMAL);
    }
    const positions = acc.positions as Json[];
    expect(positions.length).toBeGreaterThan(0);
    const markets = new Map((await getArray("/v1/public/markets")).map((m) => [m.id, m.settings as Json]));
    for (const p of positions) {
      expect(Object.keys(p).sort()).toEqual([...POSITION_FIELDS].sort());
      expect(["LONG", "SHORT"]).toContain(p.direction);
      for (const key of POSITION_FIELDS.slice(2)) expect(p[key], key).toMatch(DECIMAL);
      const settings = markets.get(p.marketId as string);
      expect(settings, `market ${String(p.marketId)}`).toBeDefined();
      expect(Number(p.leverage)).toBeGreaterThanOrEqual(Number(settings?.minLeverage));
      expect(Number(p.leverage)).toBeLessThanOrEqual(Number(settings?.maxLeverage));
      const notional = Number(p.size) * Number(p.avgExecutionPrice);
      expect(Number(p.marginAmount) + Number(p.borrowedAmount)).toBeCloseTo(notional, 4);
      expect(Number(p.marginAmount)).toBeCloseTo(notional / Number(p.leverage), 4);
    }
    expect(new Set(positions.map((p) => p.direction)).size).toBe(2);
    expect(Number(acc.totalMargin)).toBeCloseTo(Number(acc.collateralBalance) + Number(acc.totalUnrealizedPnl), 6);
    expect(Number(acc.totalInvested)).toBeCloseTo(
      positions.reduce((s, p) => s + Number(p.marginAmount), 0),
      6,
    );
    expect(Number(acc.availableMargin)).toBeCloseTo(Number(acc.totalMargin) - Number(acc.totalInvested), 6);
    expect(marginRatio(acc)).toBeLessThan(0.5);
  });

  it("answers the summary shape with numbers, collateralId and a position count", async () => {
    const acc = await account("USDT");
    expect(Object.keys(acc).sort()).toEqual([
      "availableMargin",
      "collateralBalance",
      "collateralId",
      "positions",
      "totalInvested",
      "totalMargin",
      "totalUnrealizedPnl",
    ]);
    expect(acc.collateralId).toBe("USDT");
    for (const key of ["collateralBalance", "availableMargin", "totalInvested", "totalMargin", "totalUnrealizedPnl"]) {
      expect(typeof acc[key], key).toBe("number");
    }
    expect(Number.isInteger(acc.positions)).toBe(true);
    expect(acc.positions).toBeGreaterThan(0);
    expect(acc.totalMargin as number).toBeCloseTo((acc.collateralBalance as number) + (acc.totalUnrealizedPnl as number), 6);
  });

  it("rejects an unknown or missing collateralId with 400", async () => {
    for (const path of ["/v1/private/account-info?collateralId=DOGE", "/v1/private/account-info"]) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: "unknown collateralId" });
    }
  });
});

describe("authentication and routing", () => {
  it("answers 401 on private paths without the key or with a wrong one, 200 on the public path", async () => {
    for (const path of ["/v1/private/account-info?collateralId=USDC", "/v1/private/orders/history", "/v1/private/orders/realtime"]) {
      for (const headers of [{}, { "X-Api-Key": "wrong" }]) {
        const res = await get(path, headers);
        expect(res.status, path).toBe(401);
        expect(res.json).toEqual({ error: "unauthorized" });
      }
      expect((await get(path)).status, path).toBe(200);
    }
    expect((await get("/v1/public/markets", {})).status).toBe(200);
  });

  it("matches a configured key header case-insensitively", async () => {
    const s = await start({ apiKey: "k2", apiKeyHeader: "X-Venue-Token" });
    const ok = await rawRequest(`${s.url}/v1/private/orders/realtime`, { headers: { "x-venue-token": "k2" } });
    expect(ok.status).toBe(200);
    const old = await rawRequest(`${s.url}/v1/private/orders/realtime`, { headers: KEY });
    expect(old.status).toBe(401);
  });

  it("answers 404 on unknown paths and 405 on non-GET", async () => {
    expect((await get("/v1/private/nope")).status).toBe(404);
    const res = await rawRequest(`${sim.url}/v1/public/markets`, { method: "POST" });
    expect(res.status).toBe(405);
  });
});

describe("latency", () => {
  it("holds every venue answer at least latencyMs less its 10% jitter; a latency out of range is refused", async () => {
    const far = await start({ latencyMs: 300 });
    const held: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      expect((await get("/v1/public/markets", KEY, far)).status).toBe(200);
      held.push(performance.now() - t0);
    }
    // The jitter is ±10%: each at least 270 ms.
    expect(Math.min(...held)).toBeGreaterThanOrEqual(270);
    expect(() => resolveConfig({ latencyMs: -1 })).toThrow("latencyMs: must be an integer from 0 to 60000, got -1");
  });
});

describe("markets", () => {
  it("lists every market field with 14 numeric settings", async () => {
    const markets = await getArray("/v1/public/markets");
    expect(markets).toHaveLength(20);
    expect(new Set(markets.map((m) => m.id)).size).toBe(20);
    for (const m of markets) {
      expect(Object.keys(m).sort()).toEqual(["assetId", "collateralAssetId", "id", "metadata", "metadataUrl", "name", "settings", "status"]);
      for (const key of ["id", "name", "assetId", "collateralAssetId", "metadataUrl"]) expect(typeof m[key], key).toBe("string");
      expect(m.status).toBe("TRADABLE");
      expect(["USDC", "USDT"]).toContain(m.collateralAssetId);
      expect(typeof m.metadata).toBe("object");
      const settings = m.settings as Json;
      expect(Object.keys(settings).sort()).toEqual([...SETTINGS_FIELDS].sort());
      for (const key of SETTINGS_FIELDS) expect(Number.isFinite(settings[key]), key).toBe(true);
    }
  });
});

describe("orders", () => {
  function checkOrder(o: Json, tickSizes: Map<unknown, number>): void {
    for (const [key, type] of Object.entries(ORDER_FIELDS)) expect(typeof o[key], key).toBe(type);
    expect(Array.isArray(o.signature) && (o.signature as unknown[]).every((s) => typeof s === "string")).toBe(true);
    for (const key of ["clientTimestamp", "createdAt", "updatedAt", "expiresAt"]) expect(Number.isInteger(o[key]), key).toBe(true);
    expect(["MARKET", "LIMIT"]).toContain(o.type);
    expect(["BUY", "SELL"]).toContain(o.side);
    expect(["LONG", "SHORT"]).toContain(o.direction);
    expect(["GTC", "IOC"]).toContain(o.timeInForce);
    expect("rejectionReason" in o).toBe(o.status === "REJECTED");
    if (o.status === "REJECTED") {
      const reason = o.rejectionReason as Json;
      expect(typeof reason.code).toBe("string");
      expect(typeof reason.message).toBe("string");
    }
    const tick = tickSizes.get(o.marketId) ?? Number.NaN;
    const steps = (o.price as number) / tick;
    expect(Math.abs(steps - Math.round(steps))).toBeLessThan(1e-6);
  }

  it("pages history newest first without overlap and filters by market", async () => {
    const tickSizes = new Map((await getArray("/v1/public/markets")).map((m) => [m.id, (m.settings as Json).tickSize as number]));
    const all = await getArray("/v1/private/orders/history?limit=1000");
    expect(all).toHaveLength(200);
    const statuses = new Set(all.map((o) => o.status));
    for (const s of ["FILLED", "CANCELLED", "REJECTED", "EXPIRED"]) expect(statuses).toContain(s);
    all.forEach((o) => checkOrder(o, tickSizes));
    const created = all.map((o) => o.createdAt as number);
    expect(created).toEqual([...created].sort((a, b) => b - a));

    expect(await getArray("/v1/private/orders/history")).toHaveLength(25);
    const first = await getArray("/v1/private/orders/history?offset=0&limit=10");
    const second = await getArray("/v1/private/orders/history?offset=10&limit=10");
    const both = await getArray("/v1/private/orders/history?offset=0&limit=20");
    const ids = (list: Json[]) => list.map((o) => o.id);
    expect(ids(first).filter((id) => ids(second).includes(id))).toEqual([]);
    expect([...ids(first), ...ids(second)]).toEqual(ids(both));

    const marketId = all[0]?.marketId as string;
    const filtered = await getArray(`/v1/private/orders/history?marketId=${marketId}&limit=1000`);
    expect(filtered.length).toBe(all.filter((o) => o.marketId === marketId).length);
    expect(filtered.every((o) => o.marketId === marketId)).toBe(true);
  });

  it("rejects a bad offset or limit with 400", async () => {
    for (const q of ["offset=-1", "offset=1.5", "offset=abc", "limit=-5", "limit=", "limit=2x"]) {
      const res = await get(`/v1/private/orders/history?${q}`);
      expect(res.status, q).toBe(400);
      expect((res.json as Json).error).toMatch(/invalid (offset|limit)/);
    }
    expect((await get("/v1/private/orders/realtime?limit=-1")).status).toBe(400);
  });

  it("lists active orders with a limit, a market filter and some pending flags", async () => {
    const tickSizes = new Map((await getArray("/v1/public/markets")).map((m) => [m.id, (m.settings as Json).tickSize as number]));
    const active = await getArray("/v1/private/orders/realtime");
    expect(active).toHaveLength(50);
    active.forEach((o) => checkOrder(o, tickSizes));
    expect(active.every((o) => o.status === "CREATED")).toBe(true);
    expect(await getArray("/v1/private/orders/realtime?limit=7")).toHaveLength(7);
    const marketId = active[0]?.marketId as string;
    const filtered = await getArray(`/v1/private/orders/realtime?marketId=${marketId}`);
    expect(filtered.length).toBe(active.filter((o) => o.marketId === marketId).length);

    const large = await start({ profile: "large" });
    const many = await getArray("/v1/private/orders/realtime", large);
    expect(many).toHaveLength(1000);
    for (const flag of ["isPendingCancellation", "isPendingExpiration", "isPendingRejection"]) {
      expect(
        many.some((o) => o[flag] === true),
        flag,
      ).toBe(true);
    }
  });

  it("writes timestamps in the configured unit", async () => {
    const inSeconds = await start({ timeUnit: "s" });
    const inNanos = await start({ timeUnit: "ns" });
    const [s] = await getArray("/v1/private/orders/history?limit=1", inSeconds);
    const [ns] = await getArray("/v1/private/orders/history?limit=1", inNanos);
    expect(s?.id).toBe(ns?.id);
    expect(Number.isInteger(s?.createdAt)).toBe(true);
    expect((ns?.createdAt as number) / (s?.createdAt as number)).toBeCloseTo(1e9, -4);
  });
});

describe("state", () => {
  const PATHS = [
    "/v1/private/account-info?collateralId=USDC",
    "/v1/private/account-info?collateralId=USDT",
    "/v1/private/orders/history",
    "/v1/private/orders/realtime",
    "/v1/public/markets",
  ];

  it("is deterministic per seed and start of the clock", async () => {
    const fixed = { epochMs: Date.UTC(2024, 0, 1) };
    const one = await start(fixed);
    const twin = await start(fixed);
    const other = await start({ ...fixed, seed: 2 });
    for (const path of PATHS) {
      const a = await get(path, KEY, one);
      expect((await get(path, KEY, twin)).text, path).toBe(a.text);
      expect((await get(path, KEY, other)).text, path).not.toBe(a.text);
    }
    one.tick(5);
    twin.tick(5);
    for (const path of PATHS) expect((await get(path, KEY, twin)).text, path).toBe((await get(path, KEY, one)).text);
  });

  it("moves only on ticks when tickMs is 0, and moves on every tick", async () => {
    const before = await account("USDC");
    const activeBefore = await getArray("/v1/private/orders/realtime");
    expect(await account("USDC")).toEqual(before);
    const tick = await post("/_sim/tick?n=3");
    expect(tick.status).toBe(200);
    expect((tick.json as Json).ticks).toBe(3);
    const after = await account("USDC");
    expect(after.totalUnrealizedPnl).not.toBe(before.totalUnrealizedPnl);
    expect((after.positions as Json[])[0]?.maintenanceMargin).not.toBe((before.positions as Json[])[0]?.maintenanceMargin);
    expect((await account("USDT")).collateralBalance).not.toBe((await account("USDT", await start())).collateralBalance);
    expect(await getArray("/v1/private/orders/realtime")).not.toEqual(activeBefore);
    expect((await post("/_sim/tick?n=0")).status).toBe(400);
  });

  it("moves on its own timer when tickMs is set", async () => {
    const s = await start({ tickMs: 20 });
    const first = await account("USDC", s);
    await expect.poll(async () => (await account("USDC", s)).totalUnrealizedPnl, { timeout: 2000, interval: 25 }).not.toBe(first.totalUnrealizedPnl);
  });

  it("liquidation drives the margin ratio to about 0.95 and normal restores it", async () => {
    expect(marginRatio(await account("USDC"))).toBeLessThan(0.5);
    expect((await post("/_sim/scenario", { name: "liquidation" })).status).toBe(200);
    const ratios: number[] = [];
    for (let i = 0; i < 5; i++) {
      ratios.push(marginRatio(await account("USDC")));
      sim.tick(1);
    }
    for (const r of ratios) {
      expect(r).toBeGreaterThanOrEqual(0.9);
      expect(r).toBeLessThan(1);
    }
    expect(new Set(ratios).size).toBeGreaterThan(1);
    for (const p of (await account("USDC")).positions as Json[]) {
      const distance = Math.abs(Number(p.liquidationPrice) - Number(p.avgExecutionPrice)) / Number(p.avgExecutionPrice);
      expect(distance).toBeLessThan(0.1);
    }
    expect((await post("/_sim/scenario", { name: "normal" })).status).toBe(200);
    sim.tick(2);
    expect(marginRatio(await account("USDC"))).toBeLessThan(0.5);
  });

  it("wipeout holds total margin below zero with the positions open, over ticks, and normal restores it", async () => {
    expect((await post("/_sim/scenario", { name: "wipeout" })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const usdc = await account("USDC");
      expect(Number(usdc.totalMargin)).toBeLessThan(0);
      expect((usdc.positions as Json[]).length).toBeGreaterThan(0);
      sim.tick(1);
    }
    expect((await post("/_sim/scenario", { name: "normal" })).status).toBe(200);
    sim.tick(2);
    expect(Number((await account("USDC")).totalMargin)).toBeGreaterThan(0);
    expect(marginRatio(await account("USDC"))).toBeLessThan(0.5);
  });

  it("halt puts a market holding a position in CLOSE_ONLY, normal undoes it", async () => {
    sim.setScenario("halt");
    const held = new Set(((await account("USDC")).positions as Json[]).map((p) => p.marketId));
    const closeOnly = (await getArray("/v1/public/markets")).filter((m) => m.status === "CLOSE_ONLY");
    expect(closeOnly).toHaveLength(1);
    expect(held.has(closeOnly[0]?.id)).toBe(true);
    sim.setScenario("normal");
    expect((await getArray("/v1/public/markets")).every((m) => m.status === "TRADABLE")).toBe(true);
    expect((await post("/_sim/scenario", { name: "meltdown" })).status).toBe(400);
  });
});

describe("profiles", () => {
  it("large spreads 200 positions over USDC, USDT and a detailed BTC collateral", async () => {
    const large = await start({ profile: "large" });
    const [usdc, usdt, btc] = [await account("USDC", large), await account("USDT", large), await account("BTC", large)];
    expect(btc.collateralBalance).toMatch(DECIMAL);
    const counts = [(usdc.positions as Json[]).length, usdt.positions as number, (btc.positions as Json[]).length];
    expect(counts.reduce((a, b) => a + b, 0)).toBe(200);
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(await getArray("/v1/public/markets", large)).toHaveLength(500);
  });

  it("huge serves 2,000 markets and 50,000 active orders", async () => {
    const huge = await start({ profile: "huge" });
    expect(await getArray("/v1/public/markets", huge)).toHaveLength(2000);
    const res = await rawRequest(`${huge.url}/v1/private/orders/realtime?limit=50000`, { headers: KEY, timeoutMs: 8000 });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body.toString("utf8")) as unknown[]).length).toBe(50_000);
  });
});

describe("stats", () => {
  it("counts venue requests per endpoint, unauthorized and faulted ones included, and resets", async () => {
    await get("/v1/private/account-info?collateralId=USDC");
    await get("/v1/private/account-info?collateralId=USDC", {});
    await get("/v1/public/markets");
    sim.setFaults([{ endpoint: "orders_active", kind: "status", status: 503 }]);
    await rawRequest(`${sim.url}/v1/private/orders/realtime`, { headers: KEY });
    const stats = await rawRequest(`${sim.url}/_sim/stats`);
    expect(JSON.parse(stats.body.toString())).toEqual({ requests: { account_info: 2, orders_history: 0, orders_active: 1, markets: 1 } });
    expect(sim.stats().requests.account_info).toBe(2);
    expect((await post("/_sim/stats/reset")).status).toBe(200);
    expect(sim.stats()).toEqual({ requests: { account_info: 0, orders_history: 0, orders_active: 0, markets: 0 } });
  });
});
