#!/usr/bin/env node
// Writes src/http/pages/runbook-texts.ts, the runbooks the exporter serves at /runbooks/<alertname>, from runbooks/*.md.
//
//   node scripts/generate-runbook-texts.mjs           rewrite src/http/pages/runbook-texts.ts
//   node scripts/generate-runbook-texts.mjs --check   exit 1 if it is stale
//
// The Markdown files stay the one source (GitHub shows them as they are); compiling them into a module
// puts them in dist/, so the image and the npm package serve the runbooks of their own version with no
// file to mount; src/http/pages/runbook-pages.ts renders them with markdown-it. test/runbooks.test.ts runs --check.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeOrCheck } from "./generated-file.mjs";

const SOURCE = fileURLToPath(new URL("../runbooks/", import.meta.url));
const OUTPUT = fileURLToPath(new URL("../src/http/pages/runbook-texts.ts", import.meta.url));

export function renderModule() {
  const names = readdirSync(SOURCE)
    .filter((f) => f.endsWith(".md"))
    .map((f) => f.slice(0, -3))
    .sort();
  const bad = names.filter((n) => !/^[A-Za-z][A-Za-z0-9]*$/.test(n));
  if (bad.length > 0) throw new Error(`runbooks/: not an alert name: ${bad.join(", ")}`);
  const entries = names.map((n) => `  ${n}: ${JSON.stringify(readFileSync(`${SOURCE}${n}.md`, "utf8"))},`);
  return [
    "// GENERATED from runbooks/*.md by scripts/generate-runbook-texts.mjs: the Markdown of each alert's runbook.",
    "// Do not edit: change the Markdown, then run the script (test/runbooks.test.ts fails while this is stale).",
    "",
    "export const RUNBOOK_MARKDOWN: Readonly<Record<string, string>> = {",
    ...entries,
    "};",
    "",
  ].join("\n");
}

function main(args) {
  return writeOrCheck(OUTPUT, renderModule(), args, {
    name: "src/http/pages/runbook-texts.ts",
    command: "node scripts/generate-runbook-texts.mjs",
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
