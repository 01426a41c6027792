// Writes a generated file, or with --check exits 1 when the file on disk differs: one routine for every generator.

import { readFileSync, writeFileSync } from "node:fs";

/** Writes `text` to `output`, or with `--check` in `args` compares it; returns the exit code. */
export function writeOrCheck(output, text, args, { name, command }) {
  if (args.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(output, "utf8");
    } catch {
      // missing counts as stale
    }
    if (current === text) return 0;
    process.stderr.write(`${name} is stale: run ${command}\n`);
    return 1;
  }
  writeFileSync(output, text);
  process.stdout.write(`wrote ${output}\n`);
  return 0;
}
