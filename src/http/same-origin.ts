// Whether a state-changing request (POST /-/reload) comes from a page of another site: browsers say so, curl does not.

import type { Request } from "express";

/** Why to refuse `req` as cross-site, or undefined; an `Origin` is our own only when it matches `Host` (never `null`). */
export function crossSiteReason(req: Request): string | undefined {
  if (req.get("sec-fetch-site")?.trim().toLowerCase() === "cross-site") return "refused: a cross-site browser request (Sec-Fetch-Site: cross-site)";
  const origin = req.get("origin");
  if (origin === undefined) return undefined;
  const host = req.get("host")?.trim().toLowerCase();
  const originHost = URL.parse(origin.trim())?.host.toLowerCase();
  if (originHost === undefined || originHost === "" || originHost !== host) return "refused: the request's Origin is not this exporter's own";
  return undefined;
}
