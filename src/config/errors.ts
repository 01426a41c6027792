// A configuration problem: one line naming the variable or key, never its value.

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
