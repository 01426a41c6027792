// Buffers that are kept get memory of their own size: Node cuts small ones from a shared 64 KiB pool
// (Buffer.poolSize on Node 24), and one kept slice keeps the whole slab alive.

/** `buffer`, or a copy in memory of its own when it is a view of a backing store over twice its size. */
export function ownMemory(buffer: Buffer): Buffer {
  if (buffer.byteLength * 2 > buffer.buffer.byteLength) return buffer;
  const own = Buffer.allocUnsafeSlow(buffer.byteLength);
  buffer.copy(own);
  return own;
}

/** `text` as UTF-8 in memory of its own size, for a buffer that is kept (Buffer.from would cut it from the pool). */
export function ownBytes(text: string): Buffer {
  const own = Buffer.allocUnsafeSlow(Buffer.byteLength(text, "utf8"));
  own.write(text, "utf8");
  return own;
}
