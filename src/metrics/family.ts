// A metric family as plain data: what collectors return and renderers turn into text.

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
  /** Set when no two samples can share a label set by construction (one per group of distinct label values, or per account): dedupeSeries leaves it as it is. */
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
 * everything for is left out, never filled in. Label values come cut already (venue strings by
 * readLabel, config values by their parsers), and the caller's array is kept as it is.
 */
export function addSample(family: Family, labels: ReadonlyArray<string | null | undefined>, value: number | undefined): void {
  if (value === undefined || Number.isNaN(value) || labels.includes(undefined)) return;
  family.samples.push({ labels: labels as ReadonlyArray<string | null>, value });
}
