// Bench mode "moving": every private answer differs from the one before in one number, as on a
// live venue where PnL and margins follow the mark price, without the cost of a full tick.

/** The number nudged per endpoint: a figure the exporter exports, so its output moves too. */
const FIELD: Readonly<Record<string, string>> = {
  account_info: '"totalUnrealizedPnl":',
  orders_active: '"price":',
  orders_history: '"price":',
};

/**
 * A copy of `body` whose first `field` number has its last digit replaced by (digit + n) mod 10:
 * the n-th and (n+1)-th answers always differ, the JSON stays valid and every label stays the same.
 */
export function nudged(endpoint: string, body: Buffer, n: number): Buffer {
  const field = FIELD[endpoint];
  if (field === undefined) return body;
  let at = body.indexOf(field);
  if (at < 0) return body;
  at += field.length;
  if (body[at] === 0x22) at++; // a decimal string
  let last = -1;
  while (at < body.length && ((body[at]! >= 0x30 && body[at]! <= 0x39) || body[at] === 0x2e || body[at] === 0x2d)) {
    if (body[at] !== 0x2e && body[at] !== 0x2d) last = at;
    at++;
  }
  if (last < 0) return body;
  const copy = Buffer.from(body);
  copy[last] = 0x30 + ((body[last]! - 0x30 + (n % 9) + 1) % 10);
  return copy;
}
