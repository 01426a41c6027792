// Leaves one series per final label set in each family: two venue strings can still become one label.

import type { Family, Sample } from "./family.js";

/** An unambiguous key of a sample's labels: each value length-prefixed, an absent one as "-". */
function keyOf(labels: Sample["labels"]): string {
  let key = "";
  for (const value of labels) key += value === null ? "-" : `${value.length}:${value}`;
  return key;
}

/** The first sample of a label set wins; a family without repeats is returned as the same object. */
export function dedupeSeries(families: readonly Family[]): { families: Family[]; duplicates: number } {
  let duplicates = 0;
  const out = families.map((family) => {
    if (family.unique === true) return family;
    const seen = new Set<string>();
    // A key already seen leaves the set's size as it was.
    const kept = family.samples.filter((sample) => seen.size < seen.add(keyOf(sample.labels)).size);
    duplicates += family.samples.length - kept.length;
    return kept.length === family.samples.length ? family : { ...family, samples: kept };
  });
  return { families: out, duplicates };
}
