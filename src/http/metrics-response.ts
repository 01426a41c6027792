// The answer to /metrics and /probe: the Prometheus text format 0.0.4, gzipped when the scraper accepts it.

import { pipeline, Readable } from "node:stream";
import type { Response } from "express";
import type { Answer } from "../metrics/answer.js";
import { CONTENT_TYPE } from "../metrics/text-render.js";

/** Handed to a response a slice at a time: TLS encrypts at once whatever it is handed, a copy per slow reader. */
export const WRITE_SLICE_BYTES = 64 * 1024;

function* slices(chunks: readonly Buffer[]): Generator<Buffer> {
  for (const chunk of chunks) for (let at = 0; at < chunk.byteLength; at += WRITE_SLICE_BYTES) yield chunk.subarray(at, at + WRITE_SLICE_BYTES);
}

/** Text whatever Accept asks: a scraper preferring OpenMetrics (Prometheus) lists the text format too, as for node_exporter. */
export function sendMetrics(res: Response, answer: Answer, contentType = CONTENT_TYPE): void {
  const gzip = res.req.acceptsEncodings("gzip") === "gzip";
  const chunks = gzip ? answer.gzip() : answer.plain();
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  res.status(200).set({ "content-type": contentType, vary: "accept-encoding", "content-length": String(length) });
  if (gzip) res.set("content-encoding", "gzip");
  if (res.req.method === "HEAD") res.end();
  // One slice or less is written at once: the same memory a slow reader holds, without a stream per answer.
  else if (length <= WRITE_SLICE_BYTES) {
    for (const chunk of chunks) res.write(chunk);
    res.end();
  } else pipeline(Readable.from(slices(chunks), { objectMode: false }), res, () => undefined);
}
