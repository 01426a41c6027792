// Answers an HTTP/2 request with the express app: replayed as an HTTP/1.1 request over an in-process connection.
// Express's req/res build on http.IncomingMessage/ServerResponse, which Node's HTTP/2 objects are not.

import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from "node:http";
import { constants, type Http2ServerRequest, type Http2ServerResponse } from "node:http2";
import { pipeline } from "node:stream";
import type { TLSSocket } from "node:tls";
import { socketPair } from "./socket-pair.js";

/** Connection-specific fields (RFC 9113 8.2.2): meaningless or forbidden on the other side, so never passed on. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "http2-settings", "te", "host"]);

function http1Headers(req: Http2ServerRequest): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders)) {
    // Pseudo-headers (:method, :path, :authority, :scheme) become the request line and Host.
    if (name.startsWith(":") || CONNECTION_HEADERS.has(name) || value === undefined) continue;
    headers[name] = value;
  }
  const host = req.authority || req.headers.host;
  if (host !== undefined && host !== "") headers.host = host;
  return headers;
}

function http2Headers(rawHeaders: string[]): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (CONNECTION_HEADERS.has(name)) continue;
    const seen = headers[name];
    headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return headers;
}

/** Our own answer when the request cannot be passed on or the app's answer breaks off before it starts. */
function fail(res: Http2ServerResponse, status: number, text: string): void {
  if (res.stream.destroyed || res.stream.closed) return;
  if (res.headersSent) {
    // An error code, so the client knows the body was cut short.
    res.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  res.end(`${status} ${text}\n`);
}

/**
 * Serves one HTTP/2 request through `http1` (an http.Server running the app, never listening): the
 * method, path, body and headers but the connection-specific ones go in; status, headers and body
 * stream back. The app sees the real client's address and TLS state (socket-pair.ts).
 */
export function bridgeHttp2(http1: Server, req: Http2ServerRequest, res: Http2ServerResponse): void {
  const client = req.stream.session?.socket as TLSSocket | undefined;
  if (client === undefined || req.method === "CONNECT") return fail(res, 405, "Method Not Allowed");
  const { clientEnd, serverEnd } = socketPair(client);
  const closeBoth = (): void => {
    clientEnd.destroy();
    serverEnd.destroy();
  };
  let forward: ReturnType<typeof request>;
  try {
    // One connection per request (agent-less requests say Connection: close): nothing to keep alive in-process.
    forward = request({ createConnection: () => clientEnd, method: req.method, path: req.url, headers: http1Headers(req), setHost: false });
  } catch {
    // HTTP/2 lets through a few paths and header values HTTP/1.1 refuses (a space in the path).
    closeBoth();
    return fail(res, 400, "Bad Request: the request cannot be served");
  }
  http1.emit("connection", serverEnd);
  forward.on("response", (answer) => {
    res.writeHead(answer.statusCode ?? 500, http2Headers(answer.rawHeaders));
    pipeline(answer, res, closeBoth);
  });
  forward.on("error", () => {
    closeBoth();
    fail(res, 500, "Internal Server Error");
  });
  // Answered, or the client reset the stream or went away: either way the in-process connection is
  // done, and the app sees its request end (writableFinished cannot tell: a reset stream counts as finished).
  res.on("close", () => {
    forward.destroy();
    closeBoth();
  });
  // pipe, not pipeline: a failed replay is answered above, not by resetting the client's stream.
  req.pipe(forward);
}
