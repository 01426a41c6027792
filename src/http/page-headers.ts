// The headers every HTML page carries unless the web config's `headers` gave its own.

import type { Response } from "express";

/**
 * No script, style or frame from elsewhere, and never shown inside another site's frame: the pages need
 * nothing but their own origin (their stylesheets are served by the exporter). A value the web config set
 * (its guard runs before every route) is kept.
 */
const DEFAULTS: ReadonlyArray<[string, string]> = [
  ["content-security-policy", "default-src 'self'"],
  ["x-frame-options", "DENY"],
];

export function setPageHeaders(res: Response): void {
  for (const [name, value] of DEFAULTS) if (!res.hasHeader(name)) res.setHeader(name, value);
}
