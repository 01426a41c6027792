// The metric families the "## Metrics" table of docs/metrics.md (the README links to it) documents, with their label names: the exporter's contract.

import { readFileSync } from "node:fs";

export interface DocumentedFamily {
  name: string;
  /** Label names as documented; `same` resolved to the row above's. */
  labels: string[];
}

const METRICS_DOC = new URL("../../docs/metrics.md", import.meta.url);
const SECTION = "## Metrics";
const HEADER = /^\|\s*metric\s*\|\s*labels\s*\|\s*meaning\s*\|$/;
const SEPARATOR = /^\|(?:\s*:?-+:?\s*\|){3}$/;
const NAME_CELL = /^`([a-zA-Z_:][a-zA-Z0-9_:]*)`$/;
const LABEL = /^`([a-zA-Z_][a-zA-Z0-9_]*)`$/;

/** Cells of a table row, split on pipes that are not escaped (`\|` belongs to a cell). */
function cells(row: string): string[] {
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

function labelNames(cell: string, previous: DocumentedFamily | undefined, lineNo: number): string[] {
  if (cell === "") return [];
  if (cell === "same") {
    if (previous === undefined) throw new Error(`docs/metrics.md line ${lineNo}: labels "same" on the first row of the metrics table`);
    return [...previous.labels];
  }
  return cell.split(",").map((part) => {
    const m = LABEL.exec(part.trim());
    if (!m) throw new Error(`docs/metrics.md line ${lineNo}: cannot read label ${JSON.stringify(part.trim())} in the metrics table`);
    return m[1]!;
  });
}

/** The families of the `| metric | labels | meaning |` table in the "## Metrics" section of `markdown`.
 *  Throws if the section, the table or any row of it cannot be read, so no caller gets an empty list. */
export function parseMetricsTable(markdown: string): DocumentedFamily[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.trimEnd() === SECTION);
  if (start < 0) throw new Error(`docs/metrics.md has no "${SECTION}" section`);
  const after = lines.slice(start + 1).findIndex((l) => l.startsWith("## "));
  const end = after < 0 ? lines.length : start + 1 + after;
  const header = lines.slice(start + 1, end).findIndex((l) => HEADER.test(l.trim()));
  if (header < 0) throw new Error(`docs/metrics.md's "${SECTION}" section has no "| metric | labels | meaning |" table`);
  const first = start + 1 + header;
  if (!SEPARATOR.test(lines[first + 1]?.trim() ?? "")) throw new Error(`docs/metrics.md line ${first + 2}: the metrics table lacks its |---| separator row`);
  const families: DocumentedFamily[] = [];
  for (let i = first + 2; i < end; i++) {
    const row = (lines[i] ?? "").trim();
    if (!row.startsWith("|")) break;
    const lineNo = i + 1;
    const parts = row.endsWith("|") ? cells(row) : [];
    if (parts.length !== 3) throw new Error(`docs/metrics.md line ${lineNo}: a metrics table row needs 3 cells, has ${parts.length}`);
    const name = NAME_CELL.exec(parts[0]!)?.[1];
    if (name === undefined) throw new Error(`docs/metrics.md line ${lineNo}: cannot read the metric name ${JSON.stringify(parts[0])}`);
    if (families.some((f) => f.name === name)) throw new Error(`docs/metrics.md line ${lineNo}: ${name} is documented twice`);
    families.push({ name, labels: labelNames(parts[1]!, families.at(-1), lineNo) });
  }
  if (families.length === 0) throw new Error(`docs/metrics.md's metrics table has no rows`);
  return families;
}

/** The families documented in the repository's docs/metrics.md. */
export function readmeMetrics(): DocumentedFamily[] {
  return parseMetricsTable(readFileSync(METRICS_DOC, "utf8"));
}
