// The simulator's bench mode: every private answer differs from the last in one number, labels stay.

import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { nudged } from "../tools/simulator/moving.js";

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function get(path: string): Promise<string> {
  const res = await fetch(`${sim!.url}${path}`, { headers: { "x-api-key": "k" } });
  expect(res.status).toBe(200);
  return res.text();
}

describe("simulator --moving", () => {
  it("answers each private request differently from the last, in one number, and leaves the markets alone", async () => {
    sim = await startSimulator({ apiKey: "k", tickMs: 0, moving: true, activeOrders: 20, historyOrders: 20 });
    for (const path of [
      "/v1/private/account-info?collateralId=USDC",
      "/v1/private/orders/realtime?limit=100",
      "/v1/private/orders/history?offset=0&limit=50",
    ]) {
      const answers = [await get(path), await get(path), await get(path)];
      expect(answers[1]).not.toBe(answers[0]);
      expect(answers[2]).not.toBe(answers[1]);
      const differing = [...answers[0]!].filter((c, i) => c !== answers[1]![i]).length;
      expect(differing).toBe(1);
      expect(answers[1]!.length).toBe(answers[0]!.length);
      expect(() => answers.map((a) => JSON.parse(a) as unknown)).not.toThrow();
    }
    expect(await get("/v1/public/markets")).toBe(await get("/v1/public/markets"));
  });

  it("changes only the last digit of the named number, whatever its form", () => {
    const body = Buffer.from('{"x":"1","totalUnrealizedPnl":"-12.50","y":2}');
    expect(nudged("account_info", body, 0).toString()).toBe('{"x":"1","totalUnrealizedPnl":"-12.51","y":2}');
    expect(nudged("orders_active", Buffer.from('[{"price":4.6424e-7}]'), 4).toString()).toBe('[{"price":4.6429e-7}]');
    expect(nudged("markets", body, 0)).toBe(body);
  });
});
