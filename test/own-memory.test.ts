// Kept buffers hold memory of their own size: a small Buffer cut from Node's shared pool would keep the
// whole 64 KiB slab alive for as long as the output it belongs to is served (a thousand probe outputs).

import { describe, expect, it } from "vitest";
import { Body, Part } from "../src/metrics/body.js";
import { deflatePiece, joinPieces } from "../src/metrics/gzip-member.js";
import { ownBytes, ownMemory } from "../src/util/own-memory.js";

/** The bytes a kept buffer keeps alive, at most twice its own length. */
const fitsItsMemory = (buffer: Buffer) => expect(buffer.buffer.byteLength).toBeLessThanOrEqual(Math.max(1, 2 * buffer.byteLength));

describe("kept buffers", () => {
  it("a pooled slice is copied out, a buffer of its own is kept as it is", () => {
    const pooled = Buffer.from("trading_up 1\n");
    expect(pooled.buffer.byteLength).toBeGreaterThan(1024); // what Node does: the shared pool
    const own = ownMemory(pooled);
    fitsItsMemory(own);
    expect(own.equals(pooled)).toBe(true);
    const big = Buffer.allocUnsafeSlow(100);
    expect(ownMemory(big)).toBe(big);
    fitsItsMemory(ownBytes('trading_up{account="é"} 1\n'));
    expect(ownBytes('trading_up{account="é"} 1\n').toString("utf8")).toBe('trading_up{account="é"} 1\n');
  });

  it("a body made from text, its formats and its compressed pieces do not keep a pool slab", () => {
    const body = new Body('trading_up{account="a"} 1\n');
    fitsItsMemory(body.plain("text"));
    fitsItsMemory(body.plain("openmetrics"));
    for (const piece of body.pieces("text")) fitsItsMemory(piece.raw);
    const parts = new Body([new Part(Buffer.from("a 1\n")), new Part(Buffer.from("b 2\n"))]);
    fitsItsMemory(parts.plain("text"));
    for (const piece of parts.pieces("openmetrics")) fitsItsMemory(piece.raw);
    fitsItsMemory(joinPieces([deflatePiece(Buffer.from("a 1\n")), deflatePiece(Buffer.from("b 2\n"))]).raw);
  });
});
