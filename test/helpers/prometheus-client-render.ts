// The reference renderer: families through a fresh registry of the Prometheus client for Node.js
// (formerly prom-client). The exporter's own renderer (src/metrics/text-render.ts) must match it byte for byte.

import { Counter, Gauge, Registry } from "@prometheus-io/client";
import type { Family } from "../../src/metrics/family.js";

/** A new registry filled from the families (gauges and counters): scrapes never share mutable metrics. */
export function registryOf(families: readonly Family[]): Registry {
  const registry = new Registry();
  for (const family of families) {
    const options = { name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry] };
    const metric = family.type === "counter" ? new Counter(options) : new Gauge(options);
    for (const sample of family.samples) {
      const labels: Record<string, string> = {};
      sample.labels.forEach((value, i) => {
        if (value !== null) labels[family.labelNames[i]!] = value;
      });
      // A counter's value is its total: inc() from 0 sets it.
      if (metric instanceof Counter) metric.inc(labels, sample.value);
      else metric.set(labels, sample.value);
    }
  }
  return registry;
}

export function render(families: readonly Family[]): Promise<string> {
  return registryOf(families).metrics();
}
