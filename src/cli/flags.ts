// Command-line flags in Prometheus style, made from the settings table, and --help made from it too.

import { parseArgs } from "node:util";
import { nearest } from "../config/errors.js";
import type { FlagValues } from "../config/load.js";
import { REMOVED_SETTINGS, SETTING_LIST } from "../config/settings.js";

export const COMMANDS: Array<[string, string]> = [
  ["config.check", "Validate the configuration (and web config) and exit 0 or 1, without serving."],
  ["help", "Print this help and exit."],
  ["version", "Print the version and exit."],
];

const OPTIONS: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = Object.fromEntries([
  ...SETTING_LIST.flatMap(([, s]) => (s.flag === undefined ? [] : [[s.flag, { type: s.switch ? "boolean" : "string", multiple: s.repeatable ?? false }]])),
  ...COMMANDS.map(([flag]) => [flag, flag === "help" ? { type: "boolean", short: "h" } : { type: "boolean" }]),
]);

/** The setting flags given (by name: "web.listen-address"), the commands, and a problem for every flag refused. */
export function parseCommandLine(argv: string[]) {
  // Tokens, not strict mode: strict stops at the first mistake. allowNegative: a switch is also turned off as kingpin's are.
  const { tokens } = parseArgs({ args: argv, strict: false, allowPositionals: true, allowNegative: true, tokens: true, options: OPTIONS });
  const given: Record<string, string | string[]> = {};
  const problems: string[] = [];
  for (const token of tokens) {
    const refused = refusal(token);
    if (refused !== undefined) problems.push(`command line: ${refused}`);
    else if (token.kind === "option") {
      const value = OPTIONS[token.name]!.type === "boolean" ? String(!token.rawName.startsWith("--no-")) : token.value!;
      given[token.name] = OPTIONS[token.name]!.multiple ? [...(given[token.name] ?? []), value] : value;
    }
  }
  const { "config.check": configCheck, help, version, ...flags }: FlagValues = given;
  return { flags, configCheck: configCheck === "true", help: help === "true", version: version === "true", problems };
}

/** A flag's name as it may be shown, with the dashes it was written with (-x for x of a bundle -hx): a plain name, never a value. */
function shown(name: string, dashes = "--"): string {
  return /^[A-Za-z0-9._-]{1,64}$/.test(name) ? `${dashes}${name}` : "(name not shown: not a plain flag name)";
}

/** Why a token of the line cannot be taken, in our words (an argument may be a pasted secret); undefined if it can. */
function refusal(token: NonNullable<ReturnType<typeof parseArgs>["tokens"]>[number]): string | undefined {
  if (token.kind === "option-terminator") return "unexpected argument after -- (not shown): every flag is written --name=value";
  if (token.kind === "positional") return "unexpected argument (not shown): every flag is written --name=value";
  const option = OPTIONS[token.name];
  const negated = token.rawName.startsWith("--no-");
  const removed = REMOVED_SETTINGS.find((r) => "flag" in r && r.flag === token.name);
  if (removed !== undefined) return `--${token.name}: removed: ${removed.why}; delete it`;
  if (option === undefined || (negated && option.type !== "boolean")) {
    const name = negated ? token.rawName.slice(2) : token.name;
    const guess = nearest(name, Object.keys(OPTIONS));
    const dashes = token.rawName.startsWith("--") ? "--" : "-";
    return `unknown flag ${shown(name, dashes)}${guess === undefined ? "" : ` (did you mean --${guess}?)`}`;
  }
  if (option.type === "boolean" && token.value !== undefined) return `${shown(token.name)} takes no value`;
  // As in strict mode, a value that starts with "-" is taken only as --name=value.
  if (option.type === "string" && (token.value === undefined || (!token.inlineValue && token.value.startsWith("-"))))
    return `${shown(token.name)} needs a value (--${token.name}=VALUE)`;
  return undefined;
}

/** A table row; `startupOnly` is undefined for a command (--help), which is no setting. */
export type Row = [flag: string, variable: string, key: string, fallback: string, meaning: string, more: string | undefined, startupOnly?: boolean];

export function settingRow([id, s]: (typeof SETTING_LIST)[number]): Row {
  const flag = s.flag === undefined ? "" : s.switch ? `--${s.flag}` : `--${s.flag}=${s.arg}`;
  return [flag, s.secret ? `${s.env} / ${s.env}_FILE` : (s.env ?? ""), s.file ? id : "", s.shown, s.help, s.more, s.startupOnly];
}

/** `text` cut at spaces into lines of at most 100 columns, the first after `indent`, the others after `more`. */
function wrap(text: string, indent: string, more = indent): string[] {
  const lines = [indent];
  for (const word of text.split(" ").filter(Boolean)) {
    const last = lines.at(-1)!;
    if (last.trim() !== "" && last.length + 1 + word.length > 100) lines.push(more + word);
    else lines[lines.length - 1] = last.trim() === "" ? last + word : `${last} ${word}`;
  }
  // A no-break space holds a pair together ("file web.listen_address"); it is printed as a space.
  return lines.map((l) => l.replaceAll("\u00a0", " "));
}

/** --help's groups by the setting's id, in this order; a group's required settings come first. */
const TOPICS: Array<[title: string, prefixes: string[]]> = [
  ["Venue", ["config.", "venue."]],
  ["Accounts (one from the environment, or a config file's list)", ["account.", "sharding."]],
  ["Web", ["web."]],
  ["Scrape", ["scrape."]],
  ["Log", ["log."]],
];

function helpEntry([id, s]: (typeof SETTING_LIST)[number]): string[] {
  const [flag, variable, key, fallback, meaning] = settingRow([id, s]);
  const where = [flag !== "" && variable !== "" ? `env\u00a0${variable}` : "", key && `file\u00a0${key}`].filter(Boolean).join(", ");
  const names = `${flag || variable}${where === "" ? "" : ` (${where})`}`;
  const origin = fallback.startsWith("required") ? fallback : `default ${fallback}`;
  const trailer = s.envAccount ? `(${origin}; without a config file only)` : `(${origin})`;
  return [...wrap(names, "  ", "    "), ...wrap(`${meaning} ${trailer}`, "      ")];
}

export function usage(): string {
  const groups = TOPICS.flatMap(([title, prefixes]) => {
    const settings = prefixes.flatMap((p) => SETTING_LIST.filter(([id]) => id.startsWith(p)));
    const ordered = [...settings.filter(([, s]) => s.required), ...settings.filter(([, s]) => !s.required)];
    return ["", `${title}:`, ...ordered.flatMap(helpEntry)];
  });
  return [
    "usage: trading-exporter [flags]",
    "",
    ...wrap(
      "Prometheus exporter for a leveraged trading venue, configured from the TRADING_* environment variables, or from a YAML file (--config.file, see docs/configuration.md) whose settings they override. Precedence: flag > environment variable > config file > default. Each setting: its flag, variable and config file key, then its meaning and default.",
      "",
    ),
    "",
    ...wrap("Every on/off flag (one written without a value) also has a --no- form that turns it off, such as --no-web.systemd-socket.", ""),
    "",
    "Commands:",
    ...COMMANDS.flatMap(([flag, meaning]) => [`  --${flag}`, ...wrap(meaning, "      ")]),
    ...groups,
    "",
    ...wrap("Signals: SIGHUP reloads the config and secret files; SIGTERM and SIGINT stop after in-flight scrapes.", ""),
  ].join("\n");
}
