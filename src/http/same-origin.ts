// Whether a state-changing request (POST /-/reload) comes from a page of another site: browsers say so, curl does not.

import type { Request } from "express";

/**
 * The one-line reason to refuse `req` as a cross-site browser request, or undefined to serve it.
 * A browser sends `Origin` on every POST and `Sec-Fetch-Site` on every request; curl and Kubernetes'
 * config reloaders send neither, so they are served. An `Origin` is the exporter's own when its
 * host and port are those the request was sent to (`Host`); `Origin: null` (a sandboxed or file page) never is.
 */
export function crossSiteReason(req: Request): string | undefined {
  if (req.get("sec-fetch-site")?.trim().toLowerCase() === "cross-site") return "refused: a cross-site browser request (Sec-Fetch-Site: cross-site)";
  const origin = req.get("origin");
  if (origin === undefined) return undefined;
  const host = req.get("host")?.trim().toLowerCase();
  let originHost: string | undefined;
  try {
    originHost = new URL(origin.trim()).host.toLowerCase();
  } catch {
    originHost = undefined;
  }
  if (originHost === undefined || originHost === "" || originHost !== host) return "refused: the request's Origin is not this exporter's own";
  return undefined;
}
