// Reads a duration the way Go's time.ParseDuration spells it ("1s", "1m30s", "250ms"), as exporter-toolkit's YAML does.

/** Milliseconds in one of each unit Go accepts; µ is both the micro sign and the Greek letter, as in Go. */
const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds of an unsigned Go duration, or undefined; "0" alone needs no unit, as in Go. */
export function goDurationMs(text: string): number | undefined {
  if (text === "0") return 0;
  if (text === "") return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const match = PART.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
}
