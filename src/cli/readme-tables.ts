// The two configuration tables of docs/configuration.md, made from the settings table (test/readme-settings.test.ts keeps them in step).

import { flagRows, settingRows } from "./flags.js";

const code = (text: string): string => (text === "" ? "" : `\`${text}\``);
/** A default that is a value is shown as code; "required" or "none: ..." as words. */
const defaultCell = (text: string): string => (text === "" || text.startsWith("required") || text.startsWith("none") ? text : code(text));

export function flagTable(): string {
  const rows = flagRows().map(
    ([flag, variable, key, fallback, meaning, more]) =>
      `| ${code(flag)} | ${code(variable)} | ${code(key)} | ${defaultCell(fallback)} | ${meaning}${more === undefined ? "" : ` ${more}`} |`,
  );
  return ["| flag | environment | config file | default | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

export function settingTable(): string {
  const rows = settingRows().map(([variable, key, fallback, meaning, more]) => {
    const names = variable.split(" / ").map(code).join(" or ");
    return `| ${names} | ${key === "" ? "(accounts in the file)" : code(key)} | ${defaultCell(fallback)} | ${meaning}${more === undefined ? "" : ` ${more}`} |`;
  });
  return ["| variable | config file | default | meaning |", "|---|---|---|---|", ...rows].join("\n");
}
