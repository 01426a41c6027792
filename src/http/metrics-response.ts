// The answer to /metrics and /probe: the Prometheus text format 0.0.4, gzipped when the scraper accepts it.

import { pipeline, Readable } from "node:stream";
import type { Response } from "express";
import type { Answer } from "../metrics/answer.js";
import { CONTENT_TYPE } from "../metrics/text-render.js";

/**
 * A response is handed its answer this much at a time, as the connection takes it: TLS encrypts whatever it
 * is handed at once, into memory of the connection's own, so a whole answer handed to a reader that never
 * reads would be a copy of it per reader.
 */
export const WRITE_SLICE_BYTES = 64 * 1024;

/** Views of the chunks' own memory, none longer than WRITE_SLICE_BYTES. */
function* slices(chunks: readonly Buffer[]): Generator<Buffer> {
  for (const chunk of chunks) for (let at = 0; at < chunk.byteLength; at += WRITE_SLICE_BYTES) yield chunk.subarray(at, at + WRITE_SLICE_BYTES);
}

/**
 * Writes the answer as text whatever the Accept header asks: a scraper that prefers OpenMetrics
 * (Prometheus does) lists the text format too and reads it, as it reads node_exporter's. What is
 * written are views of the answer's shared Buffer, so every response of one collection writes the
 * same memory, a slice at a time as its reader takes it.
 */
export function sendMetrics(res: Response, answer: Answer): void {
  // gzip when Accept-Encoding lists it (or *) without q=0, as Prometheus always does.
  const gzip = res.req.acceptsEncodings("gzip") === "gzip";
  const chunks = gzip ? answer.gzip() : answer.plain();
  const length = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  res.status(200).set({ "content-type": CONTENT_TYPE, vary: "accept-encoding", "content-length": String(length) });
  if (gzip) res.set("content-encoding", "gzip");
  if (res.req.method === "HEAD") {
    res.end();
    return;
  }
  // A reader that goes away ends the pipeline with an error: there is no one left to tell.
  pipeline(Readable.from(slices(chunks), { objectMode: false }), res, () => undefined);
}
