// Starts the HTTP servers (one per listen address or systemd socket) with bounded inbound and write timeouts and a connection cap, and stops them gracefully.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as TlsHttpServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Server as TlsServer, TlsOptions } from "node:tls";
import type express from "express";
import { addressText, ListenError } from "./listen-error.js";

/**
 * A client must have finished its TLS handshake within this long, and then sent its first request's
 * headers within this long (Node counts them from the connection's start; slowloris and silent
 * connections). Go's net/http bounds the handshake by the smallest of ReadHeaderTimeout, ReadTimeout
 * and WriteTimeout (`Server.tlsHandshakeTimeout`): the header bound, as here.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this long: above Prometheus's usual 60 s interval, so scrapes reuse it. */
export const IDLE_TIMEOUT_MS = 65_000;
/** Connections open at once; one more is closed at once. Prometheus's own `--web.max-connections` default. */
export const MAX_CONNECTIONS = 512;
/**
 * A response not fully written this long after its request was read has its connection closed (Go's
 * `http.Server.WriteTimeout`): twice the longest scrape deadline, past the 2-minute longest scrape interval
 * Prometheus recommends, and its scrape timeout is at most its interval.
 */
export const WRITE_TIMEOUT_MS = 120_000;

/** What the server tells about its connections (the self-metrics implement it). */
export interface ConnectionEvents {
  opened(): void;
  closed(): void;
  /** A connection closed at once because `maxConnections` were already open. */
  dropped(): void;
  /** A connection closed because its response was not fully written within the write timeout. */
  writeTimedOut(): void;
}

export interface ListenOptions {
  /** Serve over TLS with these. */
  tls?: TlsOptions | undefined;
  /** Called with the TLS server once created (the web config's certificate reload and client checks hook in). */
  onTlsServer?: ((server: TlsServer) => void) | undefined;
  headersTimeoutMs?: number;
  idleTimeoutMs?: number;
  writeTimeoutMs?: number;
  maxConnections?: number;
  events?: ConnectionEvents;
}

export interface RunningServer {
  /** An https server when serving TLS. */
  server: Server | TlsHttpServer;
  /** http(s)://host:port/ as bound (port 0 resolved). */
  url: string;
  /** Stops accepting, lets in-flight requests finish within `graceMs`, then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/** Where one server listens: an address to bind, or a listening socket already open (systemd's). */
export type ListenTarget = { host: string; port: number } | { fd: number };

/** Serves `app` on host:port, over TLS when `options.tls` is given. */
export function listen(app: express.Express, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  return listenOn(app, { host, port }, options);
}

/** The URL a bound server answers on: a TCP address, or the path of a Unix socket handed to it. */
function boundUrl(address: AddressInfo | string, scheme: string): string {
  if (typeof address === "string") return `${scheme}+unix://${encodeURIComponent(address)}/`;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `${scheme}://${shownHost}:${address.port}/`;
}

/** Serves `app` on `target`, over TLS when `options.tls` is given. */
export async function listenOn(app: express.Express, target: ListenTarget, options: ListenOptions = {}): Promise<RunningServer> {
  const {
    tls,
    onTlsServer,
    headersTimeoutMs = HEADERS_TIMEOUT_MS,
    idleTimeoutMs = IDLE_TIMEOUT_MS,
    writeTimeoutMs = WRITE_TIMEOUT_MS,
    maxConnections = MAX_CONNECTIONS,
    events,
  } = options;
  const limits = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: 120_000,
    // Node looks for expired headers and requests only this often (30 s by default), so the
    // 10 s header timeout held anywhere up to 40 s; checked every second it holds to within 1 s.
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
    keepAliveTimeout: idleTimeoutMs,
  };
  // HTTP/1.1 only: Node's https server offers http/1.1 by ALPN, so a client preferring h2 settles on it.
  // Node's default handshakeTimeout is 120 s: silent connections would hold descriptors that long.
  const secure = tls === undefined ? undefined : createTlsServer({ ...tls, ...limits, handshakeTimeout: headersTimeoutMs }, app);
  if (secure !== undefined) onTlsServer?.(secure);
  const server: Server | TlsHttpServer = secure ?? createServer(limits, app);
  server.maxHeadersCount = 100;
  // Past the cap Node closes the new connection at once and emits 'drop'.
  server.maxConnections = maxConnections;
  // Every accepted socket, the ones still in their TLS handshake included (Node's closeAllConnections knows only HTTP ones).
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    events?.opened();
    socket.once("close", () => {
      sockets.delete(socket);
      events?.closed();
    });
  });
  if (events !== undefined) server.on("drop", () => events.dropped());
  // From the request, before any route runs; a connection between requests is the idle timeout's.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const timer = setTimeout(() => {
      events?.writeTimedOut();
      req.socket.destroy();
    }, writeTimeoutMs);
    const written = (): void => clearTimeout(timer);
    res.once("finish", written);
    res.once("close", written);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      resolve();
    };
    if ("fd" in target) server.listen({ fd: target.fd }, listening);
    else server.listen(target.port, target.host, listening);
  }).catch((error: unknown) => {
    // Node's message names the address in its own words (and not at all for a name that does not resolve).
    throw "fd" in target ? error : new ListenError(addressText(target.host, target.port), error);
  });
  return {
    server,
    url: boundUrl(server.address()!, tls === undefined ? "http" : "https"),
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const closeIdle = (): void => server.closeIdleConnections();
        const force = setTimeout(() => {
          server.closeAllConnections();
          for (const socket of sockets) socket.destroy();
        }, graceMs);
        // A keep-alive connection turns idle when its in-flight scrape is answered: close it then.
        const sweep = setInterval(closeIdle, 25);
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        closeIdle();
      }),
  };
}

export interface RunningServers extends RunningServer {
  /** Every server, in the order of its target; `server` and `url` are the first one's. */
  servers: RunningServer[];
  urls: string[];
}

/** Listens on every target; if one fails, the ones already listening are closed and the error is thrown. */
export async function listenAll(app: express.Express, targets: readonly ListenTarget[], options: ListenOptions = {}): Promise<RunningServers> {
  const servers: RunningServer[] = [];
  try {
    for (const target of targets) servers.push(await listenOn(app, target, options));
  } catch (error) {
    await Promise.all(servers.map((s) => s.close(0)));
    throw error;
  }
  const first = servers[0];
  if (first === undefined) throw new Error("nothing to listen on");
  return {
    server: first.server,
    url: first.url,
    servers,
    urls: servers.map((s) => s.url),
    close: async (graceMs) => {
      await Promise.all(servers.map((s) => s.close(graceMs)));
    },
  };
}
