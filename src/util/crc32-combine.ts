// CRC-32 of two byte runs joined, from their CRCs and the second's length (zlib's GF(2) matrix method).

/** The CRC-32 polynomial, reflected, as zlib and gzip use it. */
const POLYNOMIAL = 0xedb88320;
const BITS = 32;

/** A 32x32 matrix over GF(2), one column per bit: the CRC's change over some run of zero bits. */
type Operator = Uint32Array;

function times(matrix: Operator, vector: number): number {
  let sum = 0;
  for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) {
    if ((v & 1) !== 0) sum ^= matrix[i]!;
  }
  return sum >>> 0;
}

function square(matrix: Operator): Operator {
  const result = new Uint32Array(BITS);
  for (let i = 0; i < BITS; i++) result[i] = times(matrix, matrix[i]!);
  return result;
}

/** The operator for one zero bit, squared three times: one zero byte. */
function oneZeroByte(): Operator {
  let bit: Operator = new Uint32Array(BITS);
  bit[0] = POLYNOMIAL;
  for (let i = 1; i < BITS; i++) bit[i] = 1 << (i - 1);
  for (let i = 0; i < 3; i++) bit = square(bit);
  return bit;
}

/** `zeroBytes[k]` appends 2^k zero bytes; built as far as the longest run asked for so far. */
const zeroBytes: Operator[] = [oneZeroByte()];

/**
 * The CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length in bytes: crc32(A) is
 * carried over B's length in zero bytes (one matrix product per bit of the length), then crc32(B)
 * added, so joining cached parts never reads their bytes again.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let crc = crcA >>> 0;
  for (let k = 0, rest = lengthB; rest > 0; k++, rest = Math.floor(rest / 2)) {
    if (k === zeroBytes.length) zeroBytes.push(square(zeroBytes[k - 1]!));
    if (rest % 2 === 1) crc = times(zeroBytes[k]!, crc);
  }
  return (crc ^ crcB) >>> 0;
}
