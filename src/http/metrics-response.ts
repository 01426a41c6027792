// The answer to /metrics and /probe: the Prometheus text format 0.0.4, gzipped when the scraper accepts it.

import type { Response } from "express";
import type { Answer } from "../metrics/answer.js";
import { CONTENT_TYPE } from "../metrics/text-render.js";

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
 * Writes the answer as text whatever the Accept header asks: a scraper that prefers OpenMetrics
 * (Prometheus does) lists the text format too and reads it, as it reads node_exporter's. The answer's
 * chunks are written as they are, so every response of one collection writes the same shared Buffer.
 */
export function sendMetrics(res: Response, answer: Answer, gzip: boolean): void {
  const chunks = gzip ? answer.gzip() : answer.plain();
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  res.status(200).set({ "content-type": CONTENT_TYPE, vary: "accept-encoding", "content-length": String(length) });
  if (gzip) res.set("content-encoding", "gzip");
  const last = chunks.pop();
  for (const chunk of chunks) res.write(chunk);
  res.end(last);
}
