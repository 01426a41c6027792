// Our own words for an error from a library (HTTP client, zlib, JSON parser, TLS, Node): a fixed text and its code.

function identifier(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(value) ? value : undefined;
}

/** `what (code or class name)`; never the library's message, which may quote a header value, a body or a path. */
export function libraryErrorText(error: unknown, what: string): string {
  const e = error as { code?: unknown; name?: unknown } | null | undefined;
  const detail = identifier(e?.code) ?? identifier(e?.name) ?? "unknown error";
  return `${what} (${detail})`;
}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: "no such file",
  ENOTDIR: "a part of the path is not a folder",
  EISDIR: "a folder, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "too many symbolic links",
  EMFILE: "too many files open",
  ENFILE: "too many files open",
};

/** `cannot read "PATH": why (CODE)`: the path, as JSON writes it, so a line break in it stays on the line. */
export function fileErrorText(error: unknown, path: string): string {
  const why = FILE_PROBLEMS[String((error as { code?: unknown } | null)?.code)];
  return libraryErrorText(error, `cannot read ${JSON.stringify(path)}${why === undefined ? "" : `: ${why}`}`);
}
