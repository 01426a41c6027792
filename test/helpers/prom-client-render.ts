// The reference renderer: families through a fresh prom-client registry. The exporter's own
// renderer (src/metrics/text-render.ts) must match it byte for byte.

import { Gauge, Registry } from "prom-client";
import type { Family } from "../../src/metrics/family.js";

/** A new registry filled from the families: scrapes never share mutable gauges. */
export function registryOf(families: readonly Family[]): Registry {
  const registry = new Registry();
  for (const family of families) {
    const g = new Gauge({ name: family.name, help: family.help, labelNames: family.labelNames, registers: [registry] });
    for (const sample of family.samples) {
      const labels: Record<string, string> = {};
      sample.labels.forEach((value, i) => {
        if (value !== null) labels[family.labelNames[i]!] = value;
      });
      g.set(labels, sample.value);
    }
  }
  return registry;
}

export function render(families: readonly Family[]): Promise<string> {
  return registryOf(families).metrics();
}
