// The two configuration tables of docs/configuration.md, made from the settings table (test/readme-settings.test.ts keeps them in step).

import { SETTING_LIST } from "../config/settings.js";
import { flagRows, settingRows } from "./flags.js";

const code = (text: string): string => (text === "" ? "" : `\`${text}\``);
/** A default that is a value is shown as code; "required" or "none: ..." as words. */
const defaultCell = (text: string): string => (text === "" || text.startsWith("required") || text.startsWith("none") ? text : code(text));

/** The "on reload" column: a setting read at start-up only keeps its old value (the reload logs a warning naming it). */
const KEPT = "kept";
const APPLIED = "applied";

const startupOnlyFlags = new Set(SETTING_LIST.flatMap(([, s]) => (s.flag !== undefined && s.startupOnly ? [`--${s.flag}`] : [])));
const startupOnlyVariables = new Set(SETTING_LIST.flatMap(([, s]) => (s.env !== undefined && s.startupOnly ? [s.env] : [])));

/** A command flag (--help, --config.check) is no setting: nothing to reload. */
function flagReload(flag: string, variable: string, key: string): string {
  if (variable === "" && key === "") return "";
  return startupOnlyFlags.has(flag.split("=")[0]!) ? KEPT : APPLIED;
}

export function flagTable(): string {
  const rows = flagRows().map(
    ([flag, variable, key, fallback, meaning, more]) =>
      `| ${code(flag)} | ${code(variable)} | ${code(key)} | ${defaultCell(fallback)} | ${flagReload(flag, variable, key)} | ${meaning}${more === undefined ? "" : ` ${more}`} |`,
  );
  return ["| flag | environment | config file | default | on reload | meaning |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

export function settingTable(): string {
  const rows = settingRows().map(([variable, key, fallback, meaning, more]) => {
    const names = variable.split(" / ").map(code).join(" or ");
    const reload = startupOnlyVariables.has(variable.split(" / ")[0]!) ? KEPT : APPLIED;
    return `| ${names} | ${key === "" ? "(accounts in the file)" : code(key)} | ${defaultCell(fallback)} | ${reload} | ${meaning}${more === undefined ? "" : ` ${more}`} |`;
  });
  return ["| variable | config file | default | on reload | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}
