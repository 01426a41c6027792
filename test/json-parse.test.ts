// The sliced JSON parser must agree with JSON.parse on every input, valid or not.

import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { parseJson, parseJsonItems } from "../src/util/json-parse.js";

/** Pads JSON text past the size where slicing starts, without changing its meaning. */
const big = (text: string) => `${" ".repeat(8 << 20)}${text}`;

async function outcome(text: string): Promise<unknown> {
  try {
    return { ok: await parseJson(text) };
  } catch (error) {
    return { error: error instanceof SyntaxError };
  }
}

function reference(text: string): unknown {
  try {
    return { ok: JSON.parse(text) as unknown };
  } catch {
    return { error: true };
  }
}

describe("parseJson", () => {
  it("agrees with JSON.parse on large arrays of objects cut in many batches", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.dictionary(fc.constantFrom("a", "b", "},{"), fc.jsonValue()), { maxLength: 40 }), async (value) => {
        // 30 KB per element: the array spans several 256 KB batches, so many cuts are made.
        const text = big(JSON.stringify(value.map((v, i) => ({ ...v, pad: `${i}`.repeat(30_000) }))));
        expect(await outcome(text)).toEqual(reference(text));
      }),
      { numRuns: 60 },
    );
  });

  it("agrees with JSON.parse on arbitrary large arrays", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue(), { maxLength: 20 }), async (value) => {
        const text = big(JSON.stringify(value, null, 1));
        expect(await outcome(text)).toEqual(reference(text));
      }),
      { numRuns: 60 },
    );
  });

  it.each([
    "[1,2,]",
    "[,1]",
    "[1 2]",
    "[1,2",
    "[1,2]]",
    "[1,2] x",
    '["a\\"],1]',
    '["a\\\\"]',
    "[{]",
    "[}]",
    "[]",
    "[ ]",
    '["]"]',
    '[[1,[2]],{"a":[3]}]',
    '[{"a":"},{"},{"b":[{"c":1},{"d":2}]}]',
    '[{"a":1} , {"b":2},{}]',
    '[{"a":1},{"b":2},]',
    '[{"a":1}{"b":2}]',
  ])("agrees with JSON.parse on %j", async (text) => {
    expect(await outcome(big(text))).toEqual(reference(big(text)));
  });

  it("yields to the event loop while parsing a large array", async () => {
    const text = JSON.stringify(Array.from({ length: 400_000 }, (_, i) => ({ id: `o-${i}`, price: i / 7, tags: ["a", "b"] })));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const parsed = (await parseJson(text)) as unknown[];
    clearInterval(timer);
    expect(parsed).toHaveLength(400_000);
    expect(ticks).toBeGreaterThan(0);
  });
});

describe("parseJsonItems", () => {
  async function items(text: string): Promise<unknown> {
    const out: unknown[] = [];
    try {
      return (await parseJsonItems(Buffer.from(text), (item) => out.push(item))) ? { ok: out } : { notArray: true };
    } catch (error) {
      return { error: error instanceof SyntaxError };
    }
  }

  function expected(text: string): unknown {
    try {
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) ? { ok: value } : { notArray: true };
    } catch {
      return { error: true };
    }
  }

  it("hands out JSON.parse's elements, batch by batch, for arrays of objects", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.dictionary(fc.constantFrom("a", "b", "},{"), fc.jsonValue()), { maxLength: 30 }), async (value) => {
        // 5 KB per element (some of it multi-byte, some spaced out): the array spans several 64 KiB batches.
        const text = JSON.stringify(
          value.map((v, i) => ({ ...v, pad: `${i}é☃`.repeat(2_000) })),
          null,
          value.length % 2 === 0 ? undefined : 1,
        );
        expect(await items(text)).toEqual(expected(text));
      }),
      { numRuns: 60 },
    );
  });

  it("agrees with JSON.parse on any JSON value, and on text that is not JSON", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((t) => `${t}]`),
          fc.json().map((t) => ` [${t},`),
        ),
        async (text) => {
          expect(await items(text)).toEqual(expected(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the bound on failed cuts", () => {
  /** An array whose first element holds, just past where the first batch wants to end, 40 `},{` inside a string. */
  const trap = (pad: number) => JSON.stringify([{ s: `${"x".repeat(pad)}${"},{".repeat(40)}` }, { a: 1 }, { b: [2] }]);

  /** JSON.parse calls made by `run`: MAX_MISSES (8) failed cuts, then one parse of the rest at once. */
  async function parseCalls(run: () => Promise<unknown>): Promise<{ value: unknown; calls: number }> {
    const spy = vi.spyOn(JSON, "parse");
    try {
      const value = await run();
      return { value, calls: spy.mock.calls.length };
    } finally {
      spy.mockRestore();
    }
  }

  it("tries at most 8 cuts inside a string in text, then parses the rest at once", async () => {
    const text = big(trap(300_000));
    const { value, calls } = await parseCalls(() => parseJson(text));
    expect(value).toEqual(JSON.parse(text));
    expect(calls).toBe(9);
  });

  it("tries at most 8 cuts inside a string in bytes, then parses the rest at once", async () => {
    const text = trap(70_000);
    const out: unknown[] = [];
    const { calls } = await parseCalls(() => parseJsonItems(Buffer.from(text), (item) => out.push(item)));
    expect(out).toEqual(JSON.parse(text));
    expect(calls).toBe(9);
  });
});
