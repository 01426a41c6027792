// The simulator's venue quirks: history paging that ignores offset or limit, overlaps or sends more
// than asked; lone-surrogate strings; unset times; from the command line and the control API.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../tools/simulator/cli.js";
import { FaultSpecError, startSimulator, type FaultSpec, type RunningSimulator } from "../tools/simulator/server.js";

const KEY = { "X-Api-Key": "sim-key" };
type Json = Record<string, unknown>;

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator({ tickMs: 0, historyOrders: 300 });
});
afterEach(async () => {
  await sim.close();
});

async function get(path: string): Promise<unknown> {
  const res = await fetch(sim.url + path, { headers: KEY });
  expect(res.status).toBe(200);
  return JSON.parse(await res.text());
}

const ids = async (offset: number, limit: number): Promise<string[]> =>
  ((await get(`/v1/private/orders/history?offset=${offset}&limit=${limit}`)) as Json[]).map((o) => String(o.id));

describe("history paging quirks", () => {
  it("answers as a well-behaved venue without them", async () => {
    const [a, b] = [await ids(0, 100), await ids(100, 100)];
    expect(a.length).toBe(100);
    expect(b.length).toBe(100);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });

  const cases: Array<[FaultSpec["kind"][], (first: string[], second: string[], all: string[]) => void]> = [
    [["history_ignores_offset"], (first, second) => expect(second).toEqual(first)],
    [
      ["history_ignores_limit"],
      (first, second, all) => {
        expect(first).toEqual(all);
        expect(second).toEqual(all.slice(100));
      },
    ],
    [
      ["history_ignores_offset", "history_ignores_limit"],
      (first, second, all) => {
        expect(first).toEqual(all);
        expect(second).toEqual(all);
      },
    ],
    [
      ["history_overlaps"],
      (first, second, all) => {
        expect(first).toEqual(all.slice(0, 100));
        expect(second).toEqual(all.slice(50, 150));
      },
    ],
    [
      ["history_more_than_limit"],
      (first, second, all) => {
        expect(first).toEqual(all.slice(0, 150));
        expect(second).toEqual(all.slice(100, 250));
      },
    ],
  ];
  for (const [kinds, check] of cases) {
    it(`${kinds.join(" + ")} pages as that venue would`, async () => {
      const all = await ids(0, 1000);
      sim.setFaults(kinds.map((kind) => ({ endpoint: "orders_history", kind })));
      check(await ids(0, 100), await ids(100, 100), all);
    });
  }

  it("takes them from the control API, and refuses them on another endpoint", async () => {
    const put = (body: unknown) =>
      fetch(`${sim.url}/_sim/faults`, { method: "PUT", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    expect((await put([{ endpoint: "orders_history", kind: "history_ignores_offset" }])).status).toBe(200);
    expect(await ids(100, 100)).toEqual(await ids(0, 100));
    const bad = await put([{ endpoint: "markets", kind: "history_overlaps" }]);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toBe("faults[0].kind history_overlaps applies to orders_history only");
  });

  it("composes with a counted fault of another kind", async () => {
    sim.setFaults([
      { endpoint: "orders_history", kind: "history_ignores_offset" },
      { endpoint: "orders_history", kind: "status", status: 503, times: 1 },
    ]);
    const first = await fetch(`${sim.url}/v1/private/orders/history?offset=100&limit=10`, { headers: KEY });
    expect(first.status).toBe(503);
    expect(await ids(100, 10)).toEqual(await ids(0, 10));
  });
});

describe("odd strings and unset times", () => {
  it("odd_strings gives lone surrogates, a market twin and a pair across the 128-unit cut", async () => {
    const plain = (await get("/v1/public/markets")) as Json[];
    sim.setFaults([{ endpoint: "*", kind: "odd_strings" }]);
    const markets = (await get("/v1/public/markets")) as Json[];
    expect(markets.length).toBe(plain.length + 1);
    expect(markets[0]!.id).toBe(`${String(plain[0]!.id)}\ud800`);
    expect(markets.at(-1)!.id).toBe(`${String(plain[0]!.id)}\udbff`);
    expect(String(markets[0]!.name).charCodeAt(127)).toBe(0xd83d);
    const orders = (await get("/v1/private/orders/realtime")) as Json[];
    expect(orders.slice(0, 2).map((o) => String(o.marketId).at(-1))).toEqual(["\ud800", "\udbff"]);
    const account = (await get("/v1/private/account-info?collateralId=USDC")) as { positions: Json[] };
    expect(String(account.positions[0]!.marketId).at(-1)).toBe("\ud800");
  });

  it("unset_times leaves createdAt 0, -1 or absent, and updatedAt 0", async () => {
    sim.setFaults([{ endpoint: "orders_active", kind: "unset_times" }]);
    const orders = (await get("/v1/private/orders/realtime")) as Json[];
    expect(orders.slice(0, 4).map((o) => o.createdAt)).toEqual([0, -1, undefined, expect.any(Number)]);
    expect(orders[0]!.updatedAt).toBe(0);
    expect(orders[3]!.createdAt as number).toBeGreaterThan(0);
  });

  it("empty_rejections gives every order not rejected an empty rejection reason, and keeps the codes of rejected ones", async () => {
    const plain = (await get("/v1/private/orders/history?limit=200")) as Json[];
    sim.setFaults([{ endpoint: "orders_history", kind: "empty_rejections" }]);
    const orders = (await get("/v1/private/orders/history?limit=200")) as Json[];
    expect(orders.map((o) => o.id)).toEqual(plain.map((o) => o.id));
    const rejected = plain.filter((o) => o.rejectionReason !== undefined);
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected.length).toBeLessThan(plain.length);
    orders.forEach((o, i) => {
      expect(o.rejectionReason).toEqual(plain[i]!.rejectionReason ?? { code: "", message: "" });
    });
  });
});

describe("the command line", () => {
  it("takes quirks as --fault, and says which endpoint a history quirk needs", () => {
    const command = parseCliArgs(["--fault", "orders_history:history_ignores_limit", "--fault", "*:odd_strings", "--fault", "orders_active:unset_times"]);
    expect(command).toEqual({
      kind: "run",
      options: {
        port: 8080,
        faults: [
          { endpoint: "orders_history", kind: "history_ignores_limit" },
          { endpoint: "*", kind: "odd_strings" },
          { endpoint: "orders_active", kind: "unset_times" },
        ],
      },
    });
    expect(() => parseCliArgs(["--fault", "markets:history_more_than_limit"])).toThrow(/applies to orders_history only/);
    expect(() => sim.setFaults([{ endpoint: "orders_active", kind: "history_ignores_offset" }])).toThrow(FaultSpecError);
  });
});
