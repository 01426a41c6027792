// Aggregates orders into label groups: counts, exact sums and extremes, "unknown" if any input is.

import { type Decimal, ExactSum, decimalOf, multiply } from "../util/decimal.js";

/** A running aggregate that becomes undefined for good once one input is unknown. */
export class Aggregate {
  #sum: ExactSum | undefined = new ExactSum();
  #min: number | undefined = Number.POSITIVE_INFINITY;
  #max: number | undefined = Number.NEGATIVE_INFINITY;
  count = 0;

  /** `exact`: the decimal as the venue wrote it, when a double does not keep it (see Exact). */
  add(value: number | undefined, exact?: Decimal): void {
    this.count++;
    if (value === undefined) {
      this.#sum = this.#min = this.#max = undefined;
      return;
    }
    if (exact === undefined) this.#sum?.add(value);
    else this.#sum?.addDecimal(exact);
    if (this.#min !== undefined && value < this.#min) this.#min = value;
    if (this.#max !== undefined && value > this.#max) this.#max = value;
  }

  addProduct(a: number | undefined, b: number | undefined, exactA?: Decimal, exactB?: Decimal): void {
    this.count++;
    if (a === undefined || b === undefined) {
      this.#sum = undefined;
      return;
    }
    if (exactA === undefined && exactB === undefined) this.#sum?.addProduct(a, b);
    else this.#sum?.addDecimal(multiply(decimalOf(a, exactA), decimalOf(b, exactB)));
  }

  get sum(): number | undefined {
    return this.#sum?.value;
  }
  get min(): number | undefined {
    return this.count > 0 ? this.#min : undefined;
  }
  get max(): number | undefined {
    return this.count > 0 ? this.#max : undefined;
  }
}

interface Group<T> {
  labels: string[];
  value: T;
}

/** Groups sharing a bucket label are searched in a list up to this many, then through a keyed map. */
const LIST_MAX = 8;

function sameLabels(a: readonly string[], b: ReadonlyArray<string | undefined>): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Groups keyed by their label values; a key with an unknown label value is skipped. Groups are
 * bucketed by one label (the market, which varies most) and found in their bucket's short list, so
 * no key string or array is made per order: the caller may pass the same scratch array every time,
 * copied only when a new group is made. A bucket past LIST_MAX groups (a hostile venue) is keyed.
 */
export class Groups<T> {
  readonly #buckets = new Map<string, Group<T>[] | Map<string, Group<T>>>();
  readonly #groups: Group<T>[] = [];
  readonly #make: () => T;
  readonly #bucketBy: number;

  /** `bucketBy`: the index of the label that varies most (default the second, or the only one). */
  constructor(make: () => T, bucketBy = 1) {
    this.#make = make;
    this.#bucketBy = bucketBy;
  }

  get(labels: ReadonlyArray<string | undefined>): T | undefined {
    for (let i = 0; i < labels.length; i++) if (labels[i] === undefined) return undefined;
    const by = labels[Math.min(this.#bucketBy, labels.length - 1)] ?? "";
    let bucket = this.#buckets.get(by);
    if (bucket === undefined) {
      bucket = [];
      this.#buckets.set(by, bucket);
    }
    if (Array.isArray(bucket)) {
      for (const group of bucket) if (sameLabels(group.labels, labels)) return group.value;
      const group = this.#add(labels);
      if (bucket.length < LIST_MAX) bucket.push(group);
      else this.#buckets.set(by, new Map([...bucket, group].map((g) => [g.labels.join("\u0000"), g])));
      return group.value;
    }
    const key = labels.join("\u0000");
    const found = bucket.get(key);
    if (found !== undefined) return found.value;
    const group = this.#add(labels);
    bucket.set(key, group);
    return group.value;
  }

  #add(labels: ReadonlyArray<string | undefined>): Group<T> {
    const group = { labels: labels.slice() as string[], value: this.#make() };
    this.#groups.push(group);
    return group;
  }

  /** The groups in the order they were first seen. */
  entries(): Iterable<{ labels: string[]; value: T }> {
    return this.#groups;
  }
}
