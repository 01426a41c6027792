// Content negotiation for /metrics and /probe: Prometheus text or OpenMetrics, gzip when accepted.

import type { Response } from "express";
import { type Body, EOF, type Format } from "../metrics/body.js";
import { gzipMember } from "../metrics/gzip-member.js";
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

/**
 * The answer's bytes, in the order sent: its changing part, then its reused (shared, pre-encoded)
 * part. Compressed, the parts are pieces of ONE gzip member: browsers, curl and Python's zlib
 * stop after the first member, so concatenated members would show them only the head.
 */
export function answerChunks(out: ScrapeOutput, format: Format, gzip: boolean): Buffer[] {
  const bodies: Body[] = [out.head];
  if (out.reused !== undefined) bodies.push(out.reused);
  if (format === "openmetrics") bodies.push(EOF);
  return gzip ? gzipMember(bodies.flatMap((body) => body.pieces(format))) : bodies.map((body) => body.plain(format));
}

/** Writes the scrape as one body. */
export function sendMetrics(res: Response, out: ScrapeOutput, format: Format, gzip: boolean): void {
  const chunks = answerChunks(out, format, gzip);
  res.status(200);
  res.set("content-type", format === "text" ? CONTENT_TYPE : OPENMETRICS_TYPE);
  res.set("vary", "accept, accept-encoding");
  if (gzip) res.set("content-encoding", "gzip");
  res.set("content-length", String(chunks.reduce((n, c) => n + c.length, 0)));
  // One write to the socket for the header, the pieces and the trailer, not one each (end() uncorks).
  res.cork();
  for (const chunk of chunks.slice(0, -1)) res.write(chunk);
  res.end(chunks[chunks.length - 1]);
}
