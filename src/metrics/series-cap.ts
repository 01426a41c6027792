// Caps the series of one scrape: families keep their order, the samples past the cap are dropped.

import type { Family } from "./family.js";

export function capSeries(families: readonly Family[], max: number): { families: Family[]; dropped: number } {
  const kept: Family[] = [];
  let room = max;
  let dropped = 0;
  for (const family of families) {
    if (family.samples.length <= room) {
      kept.push(family);
      room -= family.samples.length;
      continue;
    }
    dropped += family.samples.length - room;
    if (room > 0) kept.push({ ...family, samples: family.samples.slice(0, room) });
    room = 0;
  }
  return { families: kept, dropped };
}
