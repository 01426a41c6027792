// The bounded JSON walker: both of its ways (JSON.parse whole, and streamed) must agree with JSON.parse
// on every input up to the cap (past it, the streamed way follows only the nesting, so it may accept a
// body JSON.parse refuses there), stop keeping items at the cap, refuse deep nesting, and let the event loop run.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DOUBLE_DIGITS, significantDigits } from "../src/util/decimal.js";
import { JsonWalkError, MAX_DEPTH, MAX_HELD_VALUES, type WalkOptions, parsesWhole, walkJson, walkJsonParsed, walkJsonStreamed } from "../src/util/json-walk.js";

type Walk = typeof walkJsonStreamed;

/** What a walk gave: the items handed out, their count and the root's kind, or why it failed. */
async function outcome(walk: Walk, text: string, options: WalkOptions): Promise<unknown> {
  const items: unknown[] = [];
  try {
    const walked = await walk(Buffer.from(text), options, (item) => items.push(item));
    const kind = Array.isArray(walked.root) ? "array" : walked.root === null ? "null" : typeof walked.root;
    return { items, count: walked.items, overCap: walked.overCap, kind };
  } catch (error) {
    return { error: error instanceof JsonWalkError ? error.reason : String(error) };
  }
}

/** A long number as its text, as both ways keep it (the streamed way always). */
const keepLong = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === "number" && context?.source !== undefined && significantDigits(context.source) > DOUBLE_DIGITS ? context.source : value;

/** The same, from JSON.parse. */
function reference(text: string, options: WalkOptions): unknown {
  let root: unknown;
  try {
    root = JSON.parse(text, keepLong as (key: string, value: unknown) => unknown);
  } catch {
    return { error: "syntax" };
  }
  const holder =
    options.list === undefined
      ? root
      : typeof root === "object" && root !== null && !Array.isArray(root)
        ? (root as Record<string, unknown>)[options.list]
        : undefined;
  const list = Array.isArray(holder) ? holder : [];
  const kind = Array.isArray(root) ? "array" : root === null ? "null" : typeof root;
  return { items: list.slice(0, options.maxItems), count: list.length, overCap: Math.max(0, list.length - options.maxItems), kind };
}

const WAYS: Array<[string, Walk]> = [
  ["parsed whole", walkJsonParsed],
  ["streamed", walkJsonStreamed],
];

/**
 * The walk agrees with JSON.parse, except that the streamed way, which does not check the grammar
 * past the cap, may read a body JSON.parse refuses when its fault lies there.
 */
async function expectAgrees(walk: Walk, text: string, options: WalkOptions): Promise<void> {
  const got = (await outcome(walk, text, options)) as { error?: string; overCap?: number };
  const want = reference(text, options) as { error?: string };
  if (walk === walkJsonStreamed && want.error === "syntax" && got.error === undefined && (got.overCap ?? 0) > 0) return;
  expect(got).toEqual(want);
}

describe.each(WAYS)("walkJson, %s", (_name, walk) => {
  it("agrees with JSON.parse on top-level arrays, any JSON and text that is not JSON", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((t) => `${t}]`),
          fc.json().map((t) => ` [${t},`),
          fc.array(fc.jsonValue()).map((v) => JSON.stringify(v, null, 1)),
        ),
        fc.integer({ min: 0, max: 6 }),
        async (text, maxItems) => {
          await expectAgrees(walk, text, { maxItems });
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    "[1,[2 3]]",
    '[1,{"a" 1}]',
    '[1,{"a":1,}]',
    "[1,[1,]]",
    "[1,{,}]",
    '[1,{"a":1}}]',
    "[1,[}]",
    '[1,{"a":[1,{"b":2}]},[],{}]',
    '[1,"x",[[[]]],{"a":{"b":[null,true,false]}}]',
  ])("reads items past the cap as JSON.parse does, or (streamed) follows only their nesting: %s", async (text) => {
    await expectAgrees(walk, text, { maxItems: 1 });
  });

  it("agrees with JSON.parse on the list member of an object, whatever the other members hold", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("a", "positions", "b", "__proto__"), fc.jsonValue()),
        fc.integer({ min: 0, max: 6 }),
        async (value, maxItems) => {
          const text = JSON.stringify(value);
          const options = { list: "positions", maxItems };
          await expectAgrees(walk, text, options);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps top-level scalar members as sent, long numbers as their text", async () => {
    const text = '{"a":"1.5","n":12,"long":12345678901234567890,"positions":[{"x":1}],"nested":{"y":2}}';
    const walked = await walk(Buffer.from(text), { list: "positions", maxItems: 10 }, () => undefined);
    const root = walked.root as Record<string, unknown>;
    expect([root.a, root.n, root.long, Array.isArray(root.positions)]).toEqual(["1.5", 12, "12345678901234567890", true]);
  });
});

describe("long numbers, in one parse", () => {
  it("keeps every number of over 15 significant digits as its text, wherever it stands, and the others as numbers", async () => {
    const longs = ["12345678901234567", "-1234567.8901234567", "0.00012345678901234567", "1234567890.12345678e-3", "99999999999999999999"];
    const text = `[${longs[0]}, {"a":${longs[1]},"b": [1, ${longs[2]}]},\n ${longs[3]},${longs[4]}, 0.1, 123456789012345, "12345678901234567"]`;
    for (const walk of [walkJsonParsed, walkJsonStreamed]) {
      const items: unknown[] = [];
      await walk(Buffer.from(text), { maxItems: 10 }, (item) => items.push(item));
      expect(items).toEqual([longs[0], { a: longs[1], b: [1, longs[2]] }, longs[3], longs[4], 0.1, 123456789012345, "12345678901234567"]);
    }
    const top = await walkJsonParsed(Buffer.from("12345678901234567"), { maxItems: 1 }, () => undefined);
    expect(top.root).toBe("12345678901234567");
  });

  it("finds a long number alone in a body, in every place a value stands", async () => {
    const bodies = [
      '[{"a":-1234567.8901234567}]',
      '[{"a": \n 12345678901234567}]',
      "[1,\t-0.00012345678901234567]",
      "[[12345678901234567]]",
      '{"list":[],"n":99999999999999999999}',
    ];
    for (const body of bodies) {
      const walked = await walkJson(Buffer.from(body), { maxItems: 10, ...(body.startsWith("{") ? { list: "list" } : {}) }, () => undefined);
      expect(JSON.stringify(walked.root), body).toMatch(/"-?[0-9.]{16,}"/);
    }
  });

  it("finds one of 16 digits at every offset, after digits in a string and a shorter number", async () => {
    for (let pad = 0; pad <= 17; pad++) {
      const long = `${pad % 2 === 1 ? "-" : ""}1234567890123457`;
      const body = `["${"7".repeat(pad)}",${"1".repeat(15)},${" ".repeat(pad % 3)}${long}]`;
      const items: unknown[] = [];
      await walkJsonParsed(Buffer.from(body), { maxItems: 10 }, (item) => items.push(item));
      expect(items, body).toEqual(["7".repeat(pad), Number("1".repeat(15)), long]);
      const alone = `["${"x".repeat(pad)}",${long}]`;
      const walked = await walkJsonParsed(Buffer.from(alone), { maxItems: 10 }, () => undefined);
      expect(walked.root, alone).toEqual(["x".repeat(pad), long]);
    }
  });
});

describe("walkJson on hostile bodies", () => {
  const empties = (n: number, wrap: (list: string) => string = (l) => l) => Buffer.from(wrap(`[${"{},".repeat(n - 1)}{}]`));

  it("streams a large body of empty objects, keeping only the capped items", async () => {
    const body = empties(1_500_000, (l) => `{"collateralBalance":"1","positions":${l}}`);
    expect(parsesWhole(body.toString())).toBe(false);
    let handed = 0;
    const walked = await walkJson(body, { list: "positions", maxItems: 1000 }, () => handed++);
    expect([handed, walked.items, walked.overCap]).toEqual([1000, 1_500_000, 1_499_000]);
    expect((walked.root as Record<string, unknown>).collateralBalance).toBe("1");
  });

  it("parses a large body of few objects whole", () => {
    const body = Buffer.from(JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ id: String(i), pad: "x".repeat(1_000) }))));
    expect(body.length).toBeGreaterThan(1 << 20);
    expect(parsesWhole(body.toString())).toBe(true);
  });

  it("lets the event loop run while it streams", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await walkJson(empties(1_500_000), { maxItems: 10 }, () => undefined);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it("refuses nesting deeper than its bound when streaming, in our words", async () => {
    const deep = Buffer.from(`${"[".repeat(2_000_000)}${"]".repeat(2_000_000)}`);
    await expect(walkJson(deep, { maxItems: 10 }, () => undefined)).rejects.toMatchObject({ reason: "depth", message: `nested deeper than ${MAX_DEPTH}` });
  });

  it("refuses, when streaming, to hold more values than its bound outside the list's finished items", async () => {
    const members = Buffer.from(`{${Array.from({ length: MAX_HELD_VALUES }, (_, i) => `"k${i}":1`).join(",")},"positions":[]}`);
    await expect(walkJsonStreamed(members, { list: "positions", maxItems: 10 }, () => undefined)).rejects.toMatchObject({ reason: "size" });
    const bigItem = Buffer.from(`[[${"1,".repeat(MAX_HELD_VALUES)}1]]`);
    await expect(walkJsonStreamed(bigItem, { maxItems: 10 }, () => undefined)).rejects.toMatchObject({ reason: "size" });
    // Items handed out are let go: far more values than the bound, in small items, pass.
    const many = Buffer.from(`[${'{"a":[1,2,3]},'.repeat(3 * MAX_HELD_VALUES)}{}]`);
    const walked = await walkJsonStreamed(many, { maxItems: 10 }, () => undefined);
    expect(walked.items).toBe(3 * MAX_HELD_VALUES + 1);
  });

  it("stops when its signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(walkJson(empties(1_500_000), { maxItems: 10, signal: controller.signal }, () => undefined)).rejects.toMatchObject({ reason: "aborted" });
  });
});
