// Starts the HTTP servers (one per listen address or systemd socket) with bounded inbound and write timeouts and a connection cap, and stops them gracefully.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as TlsHttpServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Server as TlsServer, TlsOptions } from "node:tls";
import type express from "express";
import { addressText, ListenError } from "./listen-error.js";

/** Bounds the TLS handshake, then the first request's headers, against slowloris (as Go's tlsHandshakeTimeout). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this long: above Prometheus's usual 60 s interval, so scrapes reuse it. */
export const IDLE_TIMEOUT_MS = 65_000;
export const MAX_CONNECTIONS = 512;
/** A response not written by then loses its connection (Go's WriteTimeout): Prometheus's longest recommended interval. */
export const WRITE_TIMEOUT_MS = 120_000;

export interface ConnectionEvents {
  opened(): void;
  closed(): void;
  dropped(): void;
  writeTimedOut(): void;
}

export interface ListenOptions {
  tls?: TlsOptions | undefined;
  onTlsServer?: ((server: TlsServer) => void) | undefined;
  headersTimeoutMs?: number;
  idleTimeoutMs?: number;
  writeTimeoutMs?: number;
  maxConnections?: number;
  events?: ConnectionEvents;
}

export interface RunningServer {
  server: Server | TlsHttpServer;
  url: string;
  close(graceMs?: number): Promise<void>;
}

export type ListenTarget = { host: string; port: number } | { fd: number };

export function listen(app: express.Express, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  return listenOn(app, { host, port }, options);
}

function boundUrl(address: AddressInfo | string, scheme: string): string {
  if (typeof address === "string") return `${scheme}+unix://${encodeURIComponent(address)}/`;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `${scheme}://${shownHost}:${address.port}/`;
}

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
    // Node checks for expired headers only this often (30 s by default): each second holds the bound to within 1 s.
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
    keepAliveTimeout: idleTimeoutMs,
  };
  // Node's default handshakeTimeout is 120 s: silent connections would hold descriptors that long.
  const secure = tls === undefined ? undefined : createTlsServer({ ...tls, ...limits, handshakeTimeout: headersTimeoutMs }, app);
  if (secure !== undefined) onTlsServer?.(secure);
  const server: Server | TlsHttpServer = secure ?? createServer(limits, app);
  server.maxHeadersCount = 100;
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
  servers: RunningServer[];
  urls: string[];
}

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
