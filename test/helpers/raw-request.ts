// A bare node:http client for tests and scripts: raw bytes, no decompression, no redirects, a hard timeout.
import { request, type IncomingHttpHeaders } from "node:http";

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** How many data events the body arrived in (trickled bodies arrive in many). */
  chunks: number;
  elapsedMs: number;
}

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Abort with an error whose code is ETIMEDOUT when the whole exchange takes longer. Default 5000. */
  timeoutMs?: number;
}

export class RawRequestTimeout extends Error {
  override name = "RawRequestTimeout";
  readonly code = "ETIMEDOUT";
}

export function rawRequest(url: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "GET", headers: opts.headers ?? {}, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        clearTimeout(timer);
        const body = Buffer.concat(parts);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, chunks: parts.length, elapsedMs: performance.now() - started });
      });
    });
    const timer = setTimeout(
      () => req.destroy(new RawRequestTimeout(`no complete answer from ${url} within ${opts.timeoutMs ?? 5000} ms`)),
      opts.timeoutMs ?? 5000,
    );
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(opts.body);
  });
}
