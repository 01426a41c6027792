// Small node:http helpers shared by the venue and control routes: JSON replies, body reading, URL parsing, timers.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

export const JSON_TYPE = "application/json";

export function sendBuffer(res: ServerResponse, status: number, body: Buffer, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "Content-Type": JSON_TYPE, "Content-Length": body.length, ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  sendBuffer(res, status, Buffer.from(JSON.stringify(value)), headers);
}

export function errorBody(message: string): Buffer {
  return Buffer.from(JSON.stringify({ error: message }));
}

/** The request target as a URL; origin-form ("/path?q") and absolute-form are accepted. */
export function requestUrl(req: IncomingMessage): URL | undefined {
  const target = req.url ?? "";
  try {
    return target.startsWith("/") ? new URL(`http://simulator${target}`) : new URL(target);
  } catch {
    return undefined;
  }
}

export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
}

/** The request body as text, refusing bodies beyond `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new BodyTooLargeError(`request body over ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Timers that close() can cancel all at once, so a stopped simulator leaves nothing pending. */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();

  after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
  }

  clearAll(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
