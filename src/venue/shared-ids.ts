// Order ids read again share the string of the read before: a thousand accounts' orders otherwise held
// every id twice, once in the last read and once as the key the order outcomes remembered it by.

import type { Order } from "./snapshot.js";

/** Orders of the previous read searched past the expected one: orders that left the list since. */
const LOOKAHEAD = 8;

/**
 * Points each order's id at the equal string of the previous read's order, when it had it: lists come
 * back in the same order, shifted by what arrived and left, so the two are walked side by side, an id
 * searched at most LOOKAHEAD orders ahead (bounded by the lists' lengths, whatever their order). The
 * same text either way: only which string holds it changes, and a new read's own strings die young.
 * Returns how many ids now share the previous read's string.
 */
export function shareIds(current: readonly Order[], previous: readonly Order[]): number {
  let shared = 0;
  let j = 0;
  for (let i = 0; i < current.length && j < previous.length; i++) {
    const order = current[i]!;
    const id = order.id;
    if (id === undefined) continue;
    let k = j;
    const end = Math.min(previous.length, j + LOOKAHEAD);
    while (k < end && previous[k]!.id !== id) k++;
    // Not among the next few: a new order, which keeps its own string.
    if (k === end) continue;
    order.id = previous[k]!.id;
    shared++;
    j = k + 1;
  }
  return shared;
}
