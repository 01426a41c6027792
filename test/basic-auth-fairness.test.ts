// Basic auth under a flood from many addresses: which check runs next, what waits, what is refused, and what is remembered.

import bcrypt from "bcryptjs";
import type express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AddressStandings, addressGroup, MAX_WAIT_MS, MAX_WAITING_CHECKS } from "../src/http/toolkit/check-queue.js";
import { basicAuth, webGuards } from "../src/http/toolkit/guards.js";

const PASSWORD = "correct horse battery staple";
const HASH = bcrypt.hashSync(PASSWORD, 4);
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** A bcrypt stand-in whose checks end when the test says, so the order of checks is observed, not timed. */
function gatedCompare() {
  const calls: Array<{ password: string; finish(ok: boolean): void }> = [];
  const waiters: Array<() => void> = [];
  return {
    calls,
    compare: (password: string): Promise<boolean> =>
      new Promise<boolean>((finish) => {
        calls.push({ password, finish });
        for (const wake of waiters.splice(0)) wake();
      }),
    /** The n-th check (from 0), once it has started. */
    async call(n: number) {
      while (calls.length <= n) await new Promise<void>((wake) => waiters.push(wake));
      return calls[n]!;
    },
  };
}

/** Runs the middleware on a request from `address`: 200 if it passed, else the status it answered. */
function send(guard: express.RequestHandler, address: string, authorization: string): Promise<number> {
  return new Promise((resolve) => {
    let status = 200;
    const res = {
      status(code: number) {
        status = code;
        return res;
      },
      set: () => res,
      type: () => res,
      send: () => resolve(status),
    };
    const req = { headers: { authorization }, socket: { remoteAddress: address } };
    guard(req as unknown as express.Request, res as unknown as express.Response, () => resolve(200));
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("basic auth: the first correct login after a restart, during a flood from many addresses", () => {
  it("is checked next and admitted, not refused, while 60 addresses wait with new wrong passwords", async () => {
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const flood = Array.from({ length: 60 }, (_, i) => send(guard, `10.0.0.${i + 1}`, basic(i % 2 === 0 ? "alice" : `mallory${i}`, `guess ${i}`)));
    const login = send(guard, "10.0.1.1", basic("alice", PASSWORD));
    const secondCheck = gate.call(0).then((first) => {
      first.finish(false);
      return gate.call(1);
    });
    // Before: every place was held by the flood, so the login was answered 429 at once.
    const next = await Promise.race([login.then((status) => `answered ${status} before being checked`), secondCheck.then((c) => c.password)]);
    expect(next).toBe(PASSWORD);
    (await gate.call(1)).finish(true);
    expect(await login).toBe(200);
    // The flood waited rather than being refused; each is checked in turn and denied.
    for (let n = 2; n <= 60; n++) (await gate.call(n)).finish(false);
    expect(await Promise.all(flood)).toEqual(Array(60).fill(401));
  });

  it("puts an address whose check failed behind one that has not failed, and the newest first among equals", async () => {
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const a = send(guard, "10.0.0.1", basic("alice", "a1"));
    const b = send(guard, "10.0.0.2", basic("alice", "b1"));
    const c = send(guard, "10.0.0.3", basic("alice", "c1"));
    (await gate.call(0)).finish(false);
    expect(await a).toBe(401);
    // a asks again at once, now with a failure on its record.
    const aAgain = send(guard, "10.0.0.1", basic("alice", "a2"));
    expect((await gate.call(1)).password).toBe("c1");
    gate.calls[1]!.finish(false);
    expect((await gate.call(2)).password).toBe("b1");
    gate.calls[2]!.finish(false);
    expect((await gate.call(3)).password).toBe("a2");
    gate.calls[3]!.finish(false);
    expect(await Promise.all([b, c, aAgain])).toEqual([401, 401, 401]);
  });

  it("puts a client that was only kept waiting before one whose password failed, however often it asked", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const y1 = send(guard, "10.0.0.1", basic("alice", "y1"));
    await gate.call(0);
    const b1 = send(guard, "10.0.0.2", basic("alice", PASSWORD));
    vi.advanceTimersByTime(MAX_WAIT_MS);
    expect(await b1).toBe(429);
    gate.calls[0]!.finish(false);
    expect(await y1).toBe(401);
    const z = send(guard, "10.0.0.3", basic("alice", "z"));
    await gate.call(1);
    const b2 = send(guard, "10.0.0.2", basic("alice", PASSWORD));
    expect(await send(guard, "10.0.0.2", basic("alice", "typo"))).toBe(429);
    // 10.0.0.2 has asked three times, 10.0.0.1 twice, but only 10.0.0.1 sent a wrong password.
    const y2 = send(guard, "10.0.0.1", basic("alice", "y2"));
    gate.calls[1]!.finish(false);
    expect((await gate.call(2)).password).toBe(PASSWORD);
    gate.calls[2]!.finish(true);
    (await gate.call(3)).finish(false);
    expect(await Promise.all([z, b2, y2])).toEqual([401, 200, 401]);
  });

  it("answers 429 to a second new password from an address (or its IPv6 /64) while its first waits", async () => {
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const first = send(guard, "2001:db8:1:2::1", basic("alice", "one"));
    expect(await send(guard, "2001:db8:1:2:ffff::9", basic("alice", "two"))).toBe(429);
    // Another /64 is another client: it waits its turn.
    const other = send(guard, "2001:db8:1:3::1", basic("alice", PASSWORD));
    (await gate.call(0)).finish(false);
    expect(await first).toBe(401);
    (await gate.call(1)).finish(true);
    expect(await other).toBe(200);
  });

  it("when the waiting places are full, turns away the check ranked last, not the newcomer", async () => {
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const running = send(guard, "10.1.0.0", basic("alice", "running"));
    await gate.call(0);
    const waiting = Array.from({ length: MAX_WAITING_CHECKS }, (_, i) => send(guard, `10.1.${1 + (i >> 8)}.${i & 255}`, basic("alice", `w${i}`)));
    const login = send(guard, "10.9.9.9", basic("alice", PASSWORD));
    // The oldest of the equals ranks last: it is the one answered 429, at once.
    expect(await waiting[0]).toBe(429);
    gate.calls[0]!.finish(false);
    expect((await gate.call(1)).password).toBe(PASSWORD);
    gate.calls[1]!.finish(true);
    expect(await login).toBe(200);
    for (let n = 2; n <= MAX_WAITING_CHECKS; n++) (await gate.call(n)).finish(false);
    expect(await running).toBe(401);
    expect(new Set(await Promise.all(waiting.slice(1)))).toEqual(new Set([401]));
  });

  it("answers 429 to a check that waited MAX_WAIT_MS for its turn", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const gate = gatedCompare();
    const guard = basicAuth({ alice: HASH }, { compare: gate.compare });
    const running = send(guard, "10.0.0.1", basic("alice", "slow"));
    await gate.call(0);
    const waiting = send(guard, "10.0.0.2", basic("alice", PASSWORD));
    vi.advanceTimersByTime(MAX_WAIT_MS - 1);
    const early = await Promise.race([waiting, Promise.resolve("still waiting")]);
    expect(early).toBe("still waiting");
    vi.advanceTimersByTime(1);
    expect(await waiting).toBe(429);
    gate.calls[0]!.finish(false);
    expect(await running).toBe(401);
  });
});

describe("client address groups and their records", () => {
  it.each([
    ["127.0.0.2", "127.0.0.2"],
    ["::ffff:127.0.0.2", "127.0.0.2"],
    ["2001:db8:0:1:aaaa::1", "2001:db8:0:1::/64"],
    ["2001:0db8:0000:0001:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["", ""],
  ])("%s counts as %s", (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });

  it("keeps at most its bound of addresses, drops one after its time, and forgets an address that logged in", () => {
    let now = 0;
    const standings = new AddressStandings(() => now, { entries: 3, ttlMs: 1000 });
    for (const group of ["a", "b", "c", "d"]) standings.add(group, "failures");
    expect(standings.size).toBe(3);
    expect(standings.of("a")).toEqual({ failures: 0, attempts: 0 });
    expect(standings.of("d")).toEqual({ failures: 1, attempts: 0 });
    standings.succeeded("d");
    expect(standings.of("d")).toEqual({ failures: 0, attempts: 0 });
    now = 1000;
    expect(standings.of("c")).toEqual({ failures: 0, attempts: 0 });
  });
});

describe("the good-credential cache", () => {
  it("belongs to the guard: a guard built from a new web config checks again", async () => {
    const before = webGuards({ tls: undefined, basicAuthUsers: { alice: HASH }, headers: {} }).at(-1)!;
    expect(await send(before, "10.0.0.1", basic("alice", PASSWORD))).toBe(200);
    const after = webGuards({ tls: undefined, basicAuthUsers: { alice: bcrypt.hashSync("a new password", 4) }, headers: {} }).at(-1)!;
    expect(await send(after, "10.0.0.1", basic("alice", PASSWORD))).toBe(401);
    expect(await send(before, "10.0.0.1", basic("alice", PASSWORD))).toBe(200);
  });
});
