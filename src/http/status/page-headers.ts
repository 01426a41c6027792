// The headers every HTML page carries unless the web config's `headers` gave its own.

import type { Response } from "express";

const DEFAULTS: ReadonlyArray<[string, string]> = [
  ["content-security-policy", "default-src 'self'"],
  ["x-frame-options", "DENY"],
];

export function setPageHeaders(res: Response): void {
  for (const [name, value] of DEFAULTS) if (!res.hasHeader(name)) res.setHeader(name, value);
}
