// Families as a whole Prometheus text exposition, as the Prometheus client writes it: the tests' reference.

import type { Family } from "../../src/metrics/family.js";
import { renderFamily } from "../../src/metrics/text-render.js";

/** No blank lines, a final newline; "\n" for no family, as the Prometheus client. */
export function renderText(families: readonly Family[]): string {
  if (families.length === 0) return "\n";
  return `${families.map(renderFamily).join("\n")}\n`;
}
