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
  /** No two samples can share a label set by construction, so dedupeSeries leaves the family as it is. */
  unique?: true;
}

export function distinctSeries(families: Family[]): Family[] {
  for (const family of families) family.unique = true;
  return families;
}

export function gauge(name: string, help: string, labelNames: readonly string[]): Family {
  return { name, help, type: "gauge", labelNames, samples: [] };
}

/** `name` ends in _total; the values only grow over the process's life. */
export function counter(name: string, help: string, labelNames: readonly string[]): Family {
  return { ...gauge(name, help, labelNames), type: "counter" };
}

/** Adds a sample unless its value or a label value is unknown: an incomplete series is left out, never filled in. */
export function addSample(family: Family, labels: ReadonlyArray<string | null | undefined>, value: number | undefined): void {
  if (value === undefined || Number.isNaN(value) || labels.includes(undefined)) return;
  family.samples.push({ labels: labels as ReadonlyArray<string | null>, value });
}
