// The unchanged-body cache compares answers byte for byte across however their chunks were cut.

import { describe, expect, it } from "vitest";
import { BodyCache } from "../src/venue/body-cache.js";

const cut = (text: string, sizes: number[]) => {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const size of sizes) {
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  if (at < bytes.length) chunks.push(bytes.subarray(at));
  return { chunks, length: bytes.length };
};

describe("BodyCache", () => {
  it("reuses the value of the same bytes cut differently, and reads changed bytes again", async () => {
    const cache = new BodyCache();
    let reads = 0;
    const read = async (body: { bytes: Buffer }) => {
      reads++;
      return JSON.parse(body.bytes.toString()) as unknown;
    };
    const text = JSON.stringify({ a: "é☃".repeat(50), b: [1, 2, 3] });
    const first = await cache.read("k", cut(text, [3, 1, 40]), () => undefined, read);
    expect(await cache.read("k", cut(text, [7, 0, 90, 2]), () => undefined, read)).toBe(first);
    expect(await cache.read("k", cut(text, []), () => undefined, read)).toBe(first);
    expect(reads).toBe(1);
    const changed = text.replace("3]", "4]");
    const second = await cache.read("k", cut(changed, [5, 5]), () => undefined, read);
    expect(second).toEqual({ a: "é☃".repeat(50), b: [1, 2, 4] });
    expect(reads).toBe(2);
  });

  it("replays the invalid fields of a reused body", async () => {
    const cache = new BodyCache();
    const seen: Array<[string, number | undefined]> = [];
    const read = async (body: { bytes: Buffer }, report: (field: string, count?: number) => void) => {
      report("price", 3);
      return body.bytes.toString();
    };
    await cache.read("k", cut("[1]", [1]), (f, n) => seen.push([f, n]), read);
    await cache.read("k", cut("[1]", [2]), (f, n) => seen.push([f, n]), read);
    expect(seen).toEqual([
      ["price", 3],
      ["price", 3],
    ]);
  });
});
