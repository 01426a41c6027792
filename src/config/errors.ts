// A configuration problem: one line per problem, each naming the flag, variable or key, never its value.

/** At most this many problems are listed; a file with more says how many were left out. */
export const MAX_PROBLEMS = 20;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** One line per problem, in the order a reader meets them (flags, environment, then file order). */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : problems.length === 0 ? ["invalid"] : [...problems];
    const shown = list.length > MAX_PROBLEMS ? [...list.slice(0, MAX_PROBLEMS), `... and ${list.length - MAX_PROBLEMS} more problems`] : list;
    super(shown.join("\n"));
    this.problems = shown;
  }
}
