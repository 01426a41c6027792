// An unchanged venue answer comes back as the same objects, so its rendered part is reused; a
// moving one is read again.

import { afterEach, describe, expect, it } from "vitest";
import { Deadline } from "../src/util/deadline.js";
import { startStack, type Stack } from "./helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("unchanged answers", () => {
  it("hand back the same account, active-order and history objects while the venue stands still", async () => {
    stack = await startStack({ venue: { tickMs: 0, historyOrders: 50 } });
    const first = (await stack.exporter.collect(new Deadline(10))).accounts[0]!;
    const second = (await stack.exporter.collect(new Deadline(10))).accounts[0]!;
    expect(second.activeOrders).toBeDefined();
    expect(second.activeOrders).toBe(first.activeOrders);
    expect(second.history).toBe(first.history);
    expect(second.accountInfos[0]).toBe(first.accountInfos[0]);
  });

  it("reads a moving venue's answers again", async () => {
    stack = await startStack({ venue: { tickMs: 0, historyOrders: 50, moving: true } });
    const first = (await stack.exporter.collect(new Deadline(10))).accounts[0]!;
    const second = (await stack.exporter.collect(new Deadline(10))).accounts[0]!;
    expect(second.activeOrders).not.toBe(first.activeOrders);
    expect(second.history).not.toBe(first.history);
    expect(second.accountInfos[0]).not.toBe(first.accountInfos[0]);
  });
});
