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

type Group<T> = { labels: string[]; value: T };

/** Groups by label values, in first-seen order; keyed by the values' JSON, which keeps any characters apart. The array beside the Map is what entries() walks: a Map iterator's result objects were 84 MB of garbage in 24 s at 1,000 accounts, 31 MB without. */
export class Groups<T> {
  readonly #byKey = new Map<string, Group<T>>();
  readonly #groups: Array<Group<T>> = [];

  constructor(readonly make: () => T) {}

  get(labels: Array<string | undefined>): T | undefined {
    if (labels.includes(undefined)) return undefined;
    const key = JSON.stringify(labels);
    let group = this.#byKey.get(key);
    if (group === undefined) {
      group = { labels: labels as string[], value: this.make() };
      this.#byKey.set(key, group);
      this.#groups.push(group);
    }
    return group.value;
  }

  entries(): ReadonlyArray<Group<T>> {
    return this.#groups;
  }
}
