// Starts the HTTP servers (one per listen address or systemd socket) with bounded read, write and idle times and a connection cap
// no idle client holds, and stops them gracefully.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as TlsHttpServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Server as TlsServer, TlsOptions } from "node:tls";
import type express from "express";
import type { DropReason } from "../metrics/self.js";
import { addressText, ListenError } from "./listen-error.js";

/** Bounds the TLS handshake, then the first request's headers, against slowloris (as Go's tlsHandshakeTimeout). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** An idle keep-alive connection is closed after this long: above Prometheus's usual 60 s interval, so scrapes reuse it. */
export const IDLE_TIMEOUT_MS = 65_000;
export const MAX_CONNECTIONS = 512;
/** A request's body not in by then loses its connection (Go's ReadTimeout): a scrape is a GET whose head comes at once. */
export const READ_TIMEOUT_MS = 30_000;
/** A response not written by then loses its connection (Go's WriteTimeout): Prometheus's longest recommended interval. */
export const WRITE_TIMEOUT_MS = 120_000;

/**
 * Answers after which the connection is closed: a client refused must open a new one (and pass the cap) to try again.
 * The exporter's own say `Connection: close`, so a client knows before it sends another request.
 */
const REFUSALS = new Set([401, 403, 429]);

export interface ConnectionEvents {
  opened(): void;
  closed(): void;
  dropped(reason: DropReason): void;
  writeTimedOut(): void;
}

export interface ListenOptions {
  tls?: TlsOptions | undefined;
  onTlsServer?: ((server: TlsServer) => void) | undefined;
  headersTimeoutMs?: number;
  idleTimeoutMs?: number;
  writeTimeoutMs?: number;
  readTimeoutMs?: number;
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
    readTimeoutMs = READ_TIMEOUT_MS,
    maxConnections = MAX_CONNECTIONS,
    events,
  } = options;
  const limits = {
    headersTimeout: headersTimeoutMs,
    // A backstop behind the read timer below, which fires first and is counted.
    requestTimeout: headersTimeoutMs + readTimeoutMs + 1_000,
    // Node checks for expired headers only this often (30 s by default): each second holds the bound to within 1 s.
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
    keepAliveTimeout: idleTimeoutMs,
  };
  // Node's default handshakeTimeout is 120 s: silent connections would hold descriptors that long.
  const secure = tls === undefined ? undefined : createTlsServer({ ...tls, ...limits, handshakeTimeout: headersTimeoutMs }, app);
  if (secure !== undefined) onTlsServer?.(secure);
  const server: Server | TlsHttpServer = secure ?? createServer(limits, app);
  server.maxHeadersCount = 100;
  // Every accepted socket, the ones still in their TLS handshake included (Node's closeAllConnections knows only HTTP ones).
  const sockets = new Set<Socket>();
  // Connections past their last answer with no request in flight, least recently used first.
  const idle = new Set<Socket>();
  const inFlight = new WeakMap<Socket, number>();
  server.on("connection", (socket: Socket) => {
    if (sockets.size >= maxConnections) {
      const oldest = idle.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        events?.dropped("cap");
        return;
      }
      idle.delete(oldest);
      oldest.destroy();
      events?.dropped("idle");
    }
    sockets.add(socket);
    events?.opened();
    socket.once("close", () => {
      sockets.delete(socket);
      events?.closed();
    });
  });
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    idle.delete(socket);
    // A socket's first request: it leaves the idle list when it closes (a TLS socket is not the one accepted).
    if (!inFlight.has(socket)) socket.once("close", () => idle.delete(socket));
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    const timer = setTimeout(() => {
      events?.writeTimedOut();
      socket.destroy();
    }, writeTimeoutMs);
    const reading = req.complete
      ? undefined
      : setTimeout(() => {
          if (req.complete || socket.destroyed) return;
          events?.dropped("read_timeout");
          socket.destroy();
        }, readTimeoutMs);
    let done = false;
    const written = (): void => {
      clearTimeout(timer);
      if (done) return;
      done = true;
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (REFUSALS.has(res.statusCode) && !socket.destroyed) {
        clearTimeout(reading);
        events?.dropped("refused");
        socket.end();
      } else if (left === 0 && !socket.destroyed) {
        idle.add(socket);
      }
    };
    res.once("finish", written);
    res.once("close", written);
    req.once("close", () => {
      if (req.complete) clearTimeout(reading);
    });
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
