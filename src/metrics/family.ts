// A metric family as plain data: what collectors return and renderers turn into text.

import { MAX_LABEL_VALUE_LENGTH, cutLabel } from "../util/label-text.js";

/** A metric name in the exporter's namespace, "trading": metricName("account", "total_margin"). */
export function metricName(...parts: string[]): string {
  return ["trading", ...parts].join("_");
}

export interface Sample {
  /** In the order of the family's labelNames; null leaves that label off this sample. */
  readonly labels: ReadonlyArray<string | null>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "gauge" | "counter";
  readonly labelNames: readonly string[];
  readonly samples: Sample[];
  /** Set when a label value was cut: two series may then share labels, which the renderer merges. */
  capped?: boolean;
  /**
   * Set when no two samples can share a label set by construction (one per group of distinct label
   * values, or per account): dedupeSeries leaves the family as it is unless a value was cut.
   */
  unique?: true;
}

/** `families`, marked as having a distinct label set per sample by construction (see Family.unique). */
export function distinctSeries(families: Family[]): Family[] {
  for (const family of families) family.unique = true;
  return families;
}

export function gauge(name: string, help: string, labelNames: readonly string[]): Family {
  return { name, help, type: "gauge", labelNames, samples: [] };
}

/** A counter family: `name` ends in _total; its values only grow over the process's life. */
export function counter(name: string, help: string, labelNames: readonly string[]): Family {
  return { name, help, type: "counter", labelNames, samples: [] };
}

/**
 * Adds a sample unless its value or a label value is unknown: a series the venue did not give us
 * everything for is left out, never filled in.
 */
export function addSample(family: Family, labels: ReadonlyArray<string | null | undefined>, value: number | undefined): void {
  if (value === undefined || Number.isNaN(value)) return;
  let cut = false;
  for (const label of labels) {
    if (label === undefined) return;
    if (label !== null && label.length > MAX_LABEL_VALUE_LENGTH) cut = true;
  }
  // The caller's array is kept as it is (collectors share one per series across families); a copy
  // is made only when a value must be cut.
  const values = labels as ReadonlyArray<string | null>;
  if (!cut) {
    family.samples.push({ labels: values, value });
    return;
  }
  family.capped = true;
  family.samples.push({
    labels: values.map((l) => (l === null ? l : cutLabel(l))),
    value,
  });
}
