// Reads Prometheus text exposition back into samples, for assertions on real scrapes.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_m, c: string) => (c === "n" ? "\n" : c));
}

export function parseExposition(text: string): ParsedSample[] {
  const samples: ParsedSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`unparseable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const m of (match[2] ?? "").matchAll(LABEL)) labels[m[1]!] = unescape(m[2]!);
    const raw = match[3]!;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw);
    samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}

/** The one sample of `name` whose labels include `labels`; throws if none or several match. */
export function sampleOf(samples: ParsedSample[], name: string, labels: Record<string, string> = {}): ParsedSample {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) {
    throw new Error(`expected one ${name}${JSON.stringify(labels)}, found ${found.length}`);
  }
  return found[0]!;
}

export function valueOf(samples: ParsedSample[], name: string, labels: Record<string, string> = {}): number {
  return sampleOf(samples, name, labels).value;
}
