// Leaves one series per final label set in each family: two venue strings can still become one label.

import type { Family, Sample } from "./family.js";

type Labels = ReadonlyArray<string | null>;

/** An unambiguous key of a sample's labels: each value length-prefixed, an absent one as "-". */
function keyOf(labels: Labels): string {
  let key = "";
  for (const value of labels) key += value === null ? "-" : `${value.length}:${value}`;
  return key;
}

/**
 * The families with every repeat of a label set left out (the first sample wins), and how many
 * were left out. A family without repeats is returned as the same object.
 *
 * Collectors share one label array per series across their families, so each distinct array is
 * keyed once and numbered; a family then only marks numbers, which keeps this to a few
 * milliseconds for 100,000 series.
 */
export function dedupeSeries(families: readonly Family[]): { families: Family[]; duplicates: number } {
  let duplicates = 0;
  const idOfArray = new Map<Labels, number>();
  const idOfKey = new Map<string, number>();
  /** For each label-set number, the last family (index + 1) that had it. */
  const lastFamily: number[] = [];
  const out = families.map((family, f) => {
    // Distinct by construction (grouped orders): nothing to key, unless a cut made two values one.
    if (family.unique === true && family.capped !== true) return family;
    let kept: Sample[] | undefined;
    family.samples.forEach((sample, i) => {
      let id = idOfArray.get(sample.labels);
      if (id === undefined) {
        const key = keyOf(sample.labels);
        id = idOfKey.get(key);
        if (id === undefined) {
          id = idOfKey.size;
          idOfKey.set(key, id);
        }
        idOfArray.set(sample.labels, id);
      }
      if (lastFamily[id] !== f + 1) {
        lastFamily[id] = f + 1;
        kept?.push(sample);
        return;
      }
      duplicates++;
      kept ??= family.samples.slice(0, i);
    });
    return kept === undefined ? family : { ...family, samples: kept };
  });
  return { families: out, duplicates };
}
