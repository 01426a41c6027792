// A spec-exact renderer of gauge families to the Prometheus text format, byte-identical to
// prom-client's output for the same families (proven by test/render.test.ts) and several times faster:
// no per-sample label objects, hashing or validation, since collectors already give clean labels.

import type { Family } from "./family.js";

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

const NEEDS_ESCAPE = /[\\\n"]/;

function escapeLabel(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"') : value;
}

/** prom-client's number format: Nan, +Inf, -Inf, else JavaScript's shortest round-trip form. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "Nan";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return `${value}`;
}

/** The text of one family: HELP, TYPE and one line per distinct label set (a repeat keeps its first place, last value). */
export function renderFamily(family: Family): string {
  const name = escapeHelp(family.name);
  const lines = [`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`];
  const prefixes = family.labelNames.map((label) => `${label}="`);
  // Collectors give each series once; only cut label values can make two alike (see addSample).
  const seen = family.capped === true ? new Map<string, number>() : undefined;
  for (const sample of family.samples) {
    const values = sample.labels;
    let labels = "";
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (value === null || value === undefined) continue;
      labels += labels === "" ? `${prefixes[i]}${escapeLabel(value)}"` : `,${prefixes[i]}${escapeLabel(value)}"`;
    }
    const head = labels === "" ? name : `${name}{${labels}}`;
    const line = `${head} ${formatValue(sample.value)}`;
    const at = seen?.get(head);
    if (at !== undefined) {
      lines[at] = line;
      continue;
    }
    seen?.set(head, lines.length);
    lines.push(line);
  }
  return lines.join("\n");
}

/** Families joined as prom-client joins them: a blank line between families, a newline at the end. */
export function renderText(families: readonly Family[]): string {
  return `${families.map(renderFamily).join("\n\n")}\n`;
}
