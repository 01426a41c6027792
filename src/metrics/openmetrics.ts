// Prometheus text with counters (the exporter's own, the Prometheus client's, or a collector's) as OpenMetrics: counter families are named
// without _total (their samples keep it), no blank lines; "# EOF" is added by whoever ends the body.

export function selfToOpenMetrics(text: string): string {
  const counters = new Set<string>();
  for (const match of text.matchAll(/^# TYPE (\S+) counter$/gm)) counters.add(match[1]!);
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+)(.*)$/.exec(line);
    if (meta && counters.has(meta[2]!) && meta[2]!.endsWith("_total")) {
      out.push(`# ${meta[1]} ${meta[2]!.slice(0, -"_total".length)}${meta[3]}`);
    } else {
      out.push(line);
    }
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
