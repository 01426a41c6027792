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
