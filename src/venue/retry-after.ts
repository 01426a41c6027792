// Reads a Retry-After header (delta seconds or an HTTP date), tolerating garbage.

/** Seconds to wait from `nowMs`, capped at `capSeconds`; undefined when the header says nothing usable. */
export function parseRetryAfter(header: string | null, nowMs: number, capSeconds: number): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), capSeconds);
  if (text.length === 0 || text.length > 64) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, (at - nowMs) / 1000), capSeconds);
}
