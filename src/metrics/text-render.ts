// The Prometheus text format (0.0.4) of metric families: the client library's output less its blank lines.

import type { Family } from "./family.js";

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

const NEEDS_ESCAPE = /[\\\n"]/;

function escapeLabel(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"') : value;
}

/** the Prometheus client's number format: Nan, +Inf, -Inf, else JavaScript's shortest round-trip form. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "Nan";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return `${value}`;
}

/** HELP, TYPE and one line per sample (dedupeSeries has left one per label set). */
export function renderFamily(family: Family): string {
  const name = escapeHelp(family.name);
  const lines = [`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`];
  const first = family.labelNames.map((label) => `${name}{${label}="`);
  const next = family.labelNames.map((label) => `",${label}="`);
  for (const sample of family.samples) {
    let series = name;
    let labelled = false;
    for (let i = 0; i < sample.labels.length; i++) {
      const value = sample.labels[i];
      if (value === null || value === undefined) continue;
      series = (labelled ? series + next[i]! : first[i]!) + escapeLabel(value);
      labelled = true;
    }
    if (labelled) series += '"}';
    lines.push(`${series} ${formatValue(sample.value)}`);
  }
  return lines.join("\n");
}
