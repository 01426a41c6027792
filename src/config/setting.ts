// What one setting is: its file key, variable, flag, parser, default and help (the table is settings.ts).

export interface Setting<T, A extends string = string> {
  /** Read from the config file at this key path (the setting's id); declared false only when not, and never for envAccount. */
  file: boolean;
  env?: string;
  /** The flag without its dashes ("web.listen-address"); `arg` names its value in --help. */
  flag?: string;
  arg?: string;
  /** The flag is a switch (`--name`, `--no-name`, as kingpin's Bool), not `--name=VALUE`. */
  switch?: true;
  /** The flag may be repeated (kingpin's Strings): the parser gets the list. */
  repeatable?: true;
  /** Only without a config file: the one account the environment describes. */
  envAccount?: true;
  /** A secret: the variable, or `<variable>_FILE` naming a file that holds it. */
  secret?: true;
  required?: true;
  /** Where its value sits in a Config ("venue.baseUrl"); none for a setting that is no field of its own. */
  at?: A;
  /** Read at start-up only (the listener, the logger, the HTTP limits): a reload that changes it says the change waits for a restart. */
  startupOnly?: true;
  default?: T;
  /** The default as --help and docs/configuration.md show it, when not the default's own text (required for an object default). */
  shown?: string;
  /** One sentence for --help; `more` is added in docs/configuration.md. */
  help: string;
  more?: string;
  /** One parser whatever the source: text from a flag or variable, a YAML value from the file. */
  parse(value: unknown, where: string): T;
}

/** The value at a dotted path (a setting's `at` in a Config, its id in the config file); undefined past a non-object. */
export function configValue(config: unknown, at: string): unknown {
  return at
    .split(".")
    .reduce<unknown>((value, part) => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined), config);
}

/** Declares a setting; the value type comes from its parser. An account setting of the environment is never in the file. */
export const setting = <T, const A extends string>(s: Omit<Setting<T, A>, "file"> & { file?: false }): Setting<T, A> => ({
  ...s,
  file: s.file ?? !s.envAccount,
});

export function shownDefault(setting: Setting<unknown>): string {
  if (setting.shown !== undefined) return setting.shown;
  if (setting.default === undefined) return "required";
  return String(setting.default);
}
