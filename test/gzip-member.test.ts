// One gzip member from pieces compressed apart: CRC-32 combined without the bytes, and a body that
// a single-member decoder (Python's zlib) reads whole, equal to the pieces' texts joined.

import fc from "fast-check";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { deflatePiece, gzipMember, inflatePiece, joinPieces } from "../src/metrics/gzip-member.js";
import { crc32Combine } from "../src/util/crc32-combine.js";
import { pythonFirstMember } from "./helpers/gzip-clients.js";

describe("crc32Combine", () => {
  it("equals the CRC-32 of the two byte runs joined", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
      { numRuns: 500 },
    );
  });

  it("holds over a long second run and from any starting CRC", () => {
    // Lengths up to 2^24 exercise the squared operators past those the short runs build.
    const long = Buffer.alloc(5_000_003, 0x5a);
    long.write("the end", long.length - 7);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: long.length }), (a, cut) => {
        const b = long.subarray(0, cut);
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
      { numRuns: 30 },
    );
  });
});

describe("gzipMember", () => {
  it("frames pieces as ONE member that a single-member decoder reads whole", () => {
    const texts = ["# HELP a_metric A.\n# TYPE a_metric gauge\na_metric 1\n", "\n", "", 'b_metric{x="é"} 2\n'.repeat(5000), "# EOF\n"].map((t) =>
      Buffer.from(t),
    );
    const body = Buffer.concat(gzipMember(texts.map(deflatePiece)));
    const decoded = pythonFirstMember(body);
    expect(decoded.leftOver).toBe(0);
    expect(decoded.complete).toBe(true);
    expect(decoded.text.equals(Buffer.concat(texts))).toBe(true);
  });

  it("reads whole however the text is cut into pieces, joined pieces included", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 400 }), { maxLength: 6 }), fc.nat(6), (strings, at) => {
        const pieces = strings.map((s) => deflatePiece(Buffer.from(s)));
        const joined = [joinPieces(pieces.slice(0, at)), ...pieces.slice(at)];
        const decoded = pythonFirstMember(Buffer.concat(gzipMember(joined)));
        expect(decoded).toMatchObject({ leftOver: 0, complete: true });
        expect(decoded.text.toString("utf8")).toBe(strings.join(""));
      }),
      { numRuns: 15 },
    );
  });

  it("gives a piece's text back on its own (a part kept compressed only)", () => {
    const text = Buffer.from("c_metric 3\n".repeat(1000));
    expect(inflatePiece(deflatePiece(text)).equals(text)).toBe(true);
  });

  it("keeps a piece in memory of its own size, not in zlib's 64 KiB output chunk", () => {
    // A thousand accounts keep several pieces each: 64 KiB apiece was most of the process.
    const text = Buffer.from('trading_up{account="a"} 1\n'.repeat(200));
    const piece = deflatePiece(text);
    expect(piece.raw.buffer.byteLength).toBeLessThan(2 * piece.raw.byteLength);
    const back = inflatePiece(piece);
    expect(back.buffer.byteLength).toBeLessThan(2 * back.byteLength);
  });
});
