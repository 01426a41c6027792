// A TLS server offering HTTP/2 and HTTP/1.1 by ALPN: HTTP/1.1 reaches express as on an https server, HTTP/2 through the bridge.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, Http2ServerRequest, type Http2SecureServer, type Http2ServerResponse, type SecureServerOptions } from "node:http2";
import type express from "express";
import { bridgeHttp2 } from "./http2-bridge.js";

/** Streams one client may have open at once: RFC 9113 asks servers to allow at least 100; a scraper needs a few. */
export const MAX_CONCURRENT_STREAMS = 100;
/** Header fields one HTTP/2 request may carry, as the HTTP/1.1 side's maxHeadersCount. */
const MAX_HEADER_PAIRS = 100;

/** The HTTP/1.1 limits of an http.Server, which Node reads from an HTTP/2 server that allows HTTP/1.1 for those connections. */
export interface Http1Limits {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
  keepAliveTimeout: number;
}

/** What an HTTP/2 server that allows HTTP/1.1 has of an http.Server at run time (@types/node declares none of it). */
type Http1Fallback = Http2SecureServer & Http1Limits & { maxHeadersCount: number; closeIdleConnections(): void };

export interface Http2Timeouts {
  /** A connection that opens no stream within this long is closed, as an HTTP/1.1 one without headers. */
  headersTimeoutMs: number;
  /** An HTTP/2 connection without frames this long is closed gracefully (GOAWAY), as an idle keep-alive one. */
  idleTimeoutMs: number;
}

/** `http1Limits` bound the HTTP/1.1 connections as on an https server; `timeouts` the HTTP/2 ones. */
export function createHttp2Server(app: express.Express, options: SecureServerOptions, http1Limits: Http1Limits, timeouts: Http2Timeouts): Http2SecureServer {
  // Runs the app for the replayed HTTP/2 requests; it never listens.
  const replayed = createServer(app);
  replayed.maxHeadersCount = MAX_HEADER_PAIRS;
  const server = createSecureServer({
    ...options,
    allowHTTP1: true,
    maxHeaderListPairs: MAX_HEADER_PAIRS,
    settings: { ...options.settings, maxConcurrentStreams: MAX_CONCURRENT_STREAMS },
  }) as Http1Fallback;
  // Set on the server rather than passed as options: Node 22 and older fix them in the constructor and read them later.
  Object.assign(server, http1Limits, { maxHeadersCount: MAX_HEADER_PAIRS });
  server.on("request", (req: Http2ServerRequest | IncomingMessage, res: Http2ServerResponse | ServerResponse) => {
    if (req instanceof Http2ServerRequest) bridgeHttp2(replayed, req, res as Http2ServerResponse);
    else app(req, res as ServerResponse);
  });
  server.on("session", (session) => {
    const silent = setTimeout(() => session.destroy(), timeouts.headersTimeoutMs);
    silent.unref();
    session.once("stream", () => clearTimeout(silent));
    session.once("close", () => clearTimeout(silent));
    session.setTimeout(timeouts.idleTimeoutMs, () => session.close());
  });
  return server;
}

/** Closes the idle HTTP/1.1 keep-alive connections of a server from createHttp2Server. */
export function closeIdleHttp1(server: Http2SecureServer): void {
  (server as Http1Fallback).closeIdleConnections();
}
