// The headers every HTML page carries (the status page, the runbooks) unless the web config's `headers` gave its own.

import type { Response } from "express";

export function setPageHeaders(res: Response): void {
  if (!res.hasHeader("content-security-policy")) res.setHeader("content-security-policy", "default-src 'self'");
  if (!res.hasHeader("x-frame-options")) res.setHeader("x-frame-options", "DENY");
}
