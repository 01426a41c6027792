// What docs/configuration.md says `--help` prints is what the built command prints: every row of the two
// settings tables, with its config file key and default, and the first sentence of its meaning.

import { describe, expect, it } from "vitest";
import { runExporter } from "./helpers/child.js";
import { readDoc } from "./helpers/markdown-docs.js";

const DOC = "docs/configuration.md";
const STATEMENT =
  "`npx trading-exporter --help` prints every row of the two tables below, each flag and variable with its\nconfig file key (where it has one) and default, and the first sentence of its meaning";

interface Row {
  /** `--web.listen-address=HOST:PORT`, `TRADING_API_KEY / TRADING_API_KEY_FILE`: the name as --help writes it. */
  name: string;
  fileKey: string | undefined;
  default: string | undefined;
  meaning: string;
}

const plain = (cell: string): string => cell.replace(/`/g, "").trim();

/** The rows of the generated table `name` (flags or variables) of docs/configuration.md. */
function tableRows(doc: string, name: "flags" | "variables"): Row[] {
  const start = doc.indexOf(`<!-- settings:${name} `);
  const end = doc.indexOf(`<!-- /settings:${name} -->`);
  if (start < 0 || end < start) throw new Error(`${DOC} lacks the settings:${name} table`);
  return doc
    .slice(start, end)
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .map((l) => {
      const cells = l.slice(1, -1).split(" | ").map(plain);
      const [first = "", ...rest] = cells;
      // flags: environment, config file, default, on reload, meaning; variables: config file, default, on reload, meaning.
      const [file, def, meaning] = name === "flags" ? [rest[1], rest[2], rest[4]] : [rest[0], rest[1], rest[3]];
      return {
        name: first.replace(" or ", " / "),
        fileKey: file === "" || file?.startsWith("(") ? undefined : file,
        default: def === "" ? undefined : def,
        meaning: meaning ?? "",
      };
    });
}

/** --help's entry for `name`: the names' line and the meaning below it, as one line, after the name. */
function helpLine(help: string, name: string): { names: string; meaning: string } | undefined {
  const lines = help.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`  ${name}`) && /^ ?($|\()/.test(l.slice(2 + name.length)));
  if (at < 0) return undefined;
  // The names are indented 2 (their wrapped rest 4), the meaning 6.
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => !l.startsWith("    "));
  const entry = rest.slice(0, end < 0 ? undefined : end);
  const join = (ls: string[]) => ls.map((l) => l.trim()).join(" ");
  return {
    names: join([lines[at]!.slice(2 + name.length), ...entry.filter((l) => !l.startsWith("      "))]),
    meaning: join(entry.filter((l) => l.startsWith("      "))),
  };
}

describe("docs/configuration.md on --help", () => {
  it("says what --help prints", () => {
    expect(readDoc(DOC)).toContain(STATEMENT);
  });

  it("is what the built command prints, row by row", async () => {
    const run = await runExporter({}, ["--help"]);
    expect(run.code).toBe(0);
    const doc = readDoc(DOC);
    const rows = [...tableRows(doc, "flags"), ...tableRows(doc, "variables")];
    expect(rows.length).toBeGreaterThan(30);
    for (const row of rows) {
      const entry = helpLine(run.stdout, row.name);
      expect(entry, `--help has no entry for ${row.name}`).toBeDefined();
      // The meaning's first sentence (the table adds the rest), then its default.
      const sentence = entry!.meaning.replace(/ \((?:default|required)[^()]*\)$/, "");
      expect(sentence.length, row.name).toBeGreaterThan(10);
      expect(row.meaning.startsWith(sentence), `${row.name}: "${sentence}" does not begin "${row.meaning}"`).toBe(true);
      if (row.fileKey !== undefined) expect(entry!.names, row.name).toContain(`file ${row.fileKey}`);
      if (row.default !== undefined) expect(entry!.meaning, row.name).toContain(row.default.startsWith("required") ? row.default : `default ${row.default}`);
    }
  });
});
