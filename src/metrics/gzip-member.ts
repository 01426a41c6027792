// One gzip member from pieces compressed apart: each piece a raw deflate stream ended by a sync
// flush (byte-aligned, not final), so pieces join by concatenation, as pigz joins its blocks.

import { constants, crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { crc32Combine } from "../util/crc32-combine.js";
import { ownMemory } from "../util/own-memory.js";

/** Fast compression: the body is regenerated often and sent over a LAN. */
const GZIP_LEVEL = 1;

/** Some text compressed on its own, with what the gzip trailer needs of it. */
export interface Deflated {
  /** Raw deflate blocks, none final, ending byte-aligned (a sync flush). */
  readonly raw: Buffer;
  /** CRC-32 of the text. */
  readonly crc: number;
  /** The text's length in bytes. */
  readonly length: number;
}

export function deflatePiece(text: Buffer): Deflated {
  return { raw: ownMemory(deflateRawSync(text, { level: GZIP_LEVEL, finishFlush: constants.Z_SYNC_FLUSH })), crc: crc32(text), length: text.length };
}

/** The text back: the stream has no final block, so inflate stops at the flush instead of failing. */
export function inflatePiece(piece: Deflated): Buffer {
  return ownMemory(inflateRawSync(piece.raw, { finishFlush: constants.Z_SYNC_FLUSH }));
}

/** The CRC-32 and length of the pieces' texts one after the other, without reading them again. */
function joinedSums(pieces: readonly Deflated[]): { crc: number; length: number } {
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  return { crc, length };
}

/** Pieces one after the other, as one piece: their streams concatenated, CRCs combined, lengths summed. */
export function joinPieces(pieces: readonly Deflated[]): Deflated {
  if (pieces.length === 1) return pieces[0]!;
  // Kept with the body it belongs to: under the pool's half size, a concatenation is cut from the shared pool.
  return { raw: ownMemory(Buffer.concat(pieces.map((p) => p.raw))), ...joinedSums(pieces) };
}

/** ID1 ID2, CM deflate, no flags, no time, XFL "fastest" (level 1), OS Unix: what gzipSync writes at level 1. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x03]);
/** An empty fixed-Huffman block marked final (BFINAL 1, BTYPE 01, end-of-block), padded to the byte. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * One gzip member of the pieces in order, as the buffers to send one after the other (the pieces'
 * streams are not copied): the header, each stream, a final empty block, then CRC-32 and length
 * mod 2^32 of the whole text, little-endian. Every gzip decoder reads it whole, including those
 * that stop after the first member (browsers, `curl --compressed`, Python's zlib).
 */
export function gzipMember(pieces: readonly Deflated[]): Buffer[] {
  const { crc, length } = joinedSums(pieces);
  const trailer = Buffer.alloc(FINAL_BLOCK.length + 8);
  FINAL_BLOCK.copy(trailer);
  trailer.writeUInt32LE(crc, FINAL_BLOCK.length);
  trailer.writeUInt32LE(length % 2 ** 32, FINAL_BLOCK.length + 4);
  return [HEADER, ...pieces.map((p) => p.raw), trailer];
}
