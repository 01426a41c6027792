// The two configuration tables of docs/configuration.md, made from the settings table, and the thresholds table of
// docs/thresholds.md, made from the table of defaults (readme-settings.test.ts keeps them in step).

import { THRESHOLD_KEYS, THRESHOLDS } from "../../src/config/threshold-table.js";
import { COMMANDS, type Row, settingRow } from "../../src/cli/flags.js";
import { SETTING_LIST } from "../../src/config/settings.js";

/** The rows of the flag table of docs/configuration.md: every setting with a flag, then the commands. */
export function flagRows(): Row[] {
  const commands = COMMANDS.map(([flag, meaning]): Row => [`--${flag}`, "", "", "", meaning, undefined]);
  return [...SETTING_LIST.filter(([, s]) => s.flag !== undefined).map(settingRow), ...commands];
}

const settingRows = (): Row[] => SETTING_LIST.filter(([, s]) => s.flag === undefined).map(settingRow);

const code = (text: string): string => (text === "" ? "" : `\`${text}\``);
/** A default that is a value is shown as code; "required" or "none: ..." as words. */
const defaultCell = (text: string): string => (text === "" || text.startsWith("required") || text.startsWith("none") ? text : code(text));

/** The "on reload" column: a setting read at start-up only keeps its old value (the reload logs a warning naming it). */
const reload = (startupOnly: boolean | undefined): string => (startupOnly === undefined ? "" : startupOnly ? "kept" : "applied");

export function flagTable(): string {
  const rows = flagRows().map(
    ([flag, variable, key, fallback, meaning, more, startupOnly]) =>
      `| ${code(flag)} | ${code(variable)} | ${code(key)} | ${defaultCell(fallback)} | ${reload(startupOnly)} | ${meaning}${more === undefined ? "" : ` ${more}`} |`,
  );
  return ["| flag | environment | config file | default | on reload | meaning |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

export function settingTable(): string {
  const rows = settingRows().map(([, variable, key, fallback, meaning, more, startupOnly]) => {
    const names = variable.split(" / ").map(code).join(" or ");
    return `| ${names} | ${key === "" ? "(accounts in the file)" : code(key)} | ${defaultCell(fallback)} | ${reload(startupOnly)} | ${meaning}${more === undefined ? "" : ` ${more}`} |`;
  });
  return ["| variable | config file | default | on reload | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** Every threshold key: its default, the alert that compares with it, and on which side it fires. */
export function thresholdTable(): string {
  const rows = THRESHOLD_KEYS.map((key) => {
    const t = THRESHOLDS[key];
    const family = t.unit === "seconds" ? "`trading_account_alert_threshold_seconds`" : "`trading_account_alert_threshold`";
    const compared = "measure" in t ? `${t.measure} of ${code(t.series)}` : code(t.series);
    return `| ${code(key)} | ${code(String(t.default))} | ${code(t.alert)}: ${compared} ${t.fires} it | ${family} | ${t.help} |`;
  });
  return ["| key | default | alert | series | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}
