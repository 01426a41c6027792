// Content negotiation for /metrics and /probe: Prometheus text or OpenMetrics, gzip when accepted.

import type { Response } from "express";
import { EOF, type Format } from "../metrics/body.js";
import type { ScrapeOutput } from "../exporter.js";
import { CONTENT_TYPE } from "../metrics/text-render.js";

const OPENMETRICS_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** OpenMetrics only when the scraper asks for it (Prometheus does when configured to), else text 0.0.4. */
export function negotiateFormat(accept: string | undefined): Format {
  return accept !== undefined && /application\/openmetrics-text/i.test(accept) ? "openmetrics" : "text";
}

/** gzip when the Accept-Encoding lists it without q=0 (Prometheus always sends it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") return false;
    return !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/** Writes the scrape: its changing part, then its reused (shared, pre-encoded) part, as one body. */
export function sendMetrics(res: Response, out: ScrapeOutput, format: Format, gzip: boolean): void {
  const parts = [out.head.encoded(format, gzip)];
  if (out.reused !== undefined) parts.push(out.reused.encoded(format, gzip));
  if (format === "openmetrics") parts.push(EOF.encoded(format, gzip));
  res.status(200);
  res.set("content-type", format === "text" ? CONTENT_TYPE : OPENMETRICS_TYPE);
  res.set("vary", "accept, accept-encoding");
  if (gzip) res.set("content-encoding", "gzip");
  res.set("content-length", String(parts.reduce((n, p) => n + p.length, 0)));
  for (const part of parts.slice(0, -1)) res.write(part);
  res.end(parts[parts.length - 1]);
}
