// The HTTP servers, one per listen address or systemd socket: bounded times, a connection cap no idle client holds, a graceful stop.

import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type Server as TlsHttpServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Server as TlsServer, TLSSocket, TlsOptions } from "node:tls";
import type express from "express";
import { libraryErrorText } from "../util/error-text.js";
import { ConnectionCap, type ConnectionEvents } from "./connection-cap.js";

/** Bounds the TLS handshake, then the first request's headers, against slowloris (as Go's tlsHandshakeTimeout). */
const HEADERS_TIMEOUT_MS = 10_000;

/** Answers after which the connection is closed (the exporter's own say `Connection: close`): a refused client must pass the cap again. */
const REFUSALS = new Set([401, 403, 429]);

/** The web.* settings as the configuration holds them: the idle keep-alive, the request body's read (Go's ReadTimeout), the response's write (WriteTimeout). */
export interface ListenOptions {
  idleTimeoutSeconds: number;
  readTimeoutSeconds: number;
  writeTimeoutSeconds: number;
  maxConnections: number;
  /** HEADERS_TIMEOUT_MS unless given: the exporter's is fixed, a shorter one lets a test see it act. */
  headersTimeoutMs?: number;
  tls?: TlsOptions | undefined;
  onTlsServer?: ((server: TlsServer) => void) | undefined;
  events?: ConnectionEvents;
}

export interface RunningServer {
  server: Server | TlsHttpServer;
  url: string;
  close(graceMs?: number): Promise<void>;
}

export type ListenTarget = { host: string; port: number } | { fd: number };

export function addressText(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

const ON_THIS_HOST = "set {setting} to an address of this host, or 0.0.0.0 for all of them";
const BY_IP = "set {setting} to an IP address instead of a name";

/** The failures a person can act on, by Node's code; {setting} is where the address is set (a flag, or a variable). */
const PROBLEMS: Readonly<Record<string, readonly [reason: string, remedy: string]>> = {
  EADDRINUSE: ["the address is in use", "stop what holds it or set {setting}"],
  EACCES: ["permission denied (a port below 1024 needs privileges)", "set {setting} to a port above 1023, or grant the process CAP_NET_BIND_SERVICE"],
  EADDRNOTAVAIL: ["no interface of this host has that address", ON_THIS_HOST],
  EAFNOSUPPORT: ["this host does not support that address family (IPv6 or IPv4)", ON_THIS_HOST],
  ENOTFOUND: ["no such host name or IP address", ON_THIS_HOST],
  EAI_NONAME: ["no such host name or IP address", ON_THIS_HOST],
  EAI_AGAIN: ["the host name could not be looked up (DNS did not answer)", BY_IP],
  EAI_FAIL: ["the host name could not be looked up (DNS failed)", BY_IP],
};

/** A listen address the exporter cannot serve on: the address, why in our words, and what to do (never Node's message). */
export class ListenError extends Error {
  override readonly name = "ListenError";
  readonly reason: string;
  readonly #remedy: string;

  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: unknown } | null | undefined)?.code;
    const known = typeof code === "string" ? PROBLEMS[code] : undefined;
    const [reason, remedy] = known ?? [libraryErrorText(cause, "the address cannot be used"), "check {setting}"];
    super(`cannot listen on ${address}: ${reason}`);
    this.reason = reason;
    this.#remedy = remedy;
  }

  line(setting: string): string {
    return `${this.message}; ${this.#remedy.replace("{setting}", setting)}`;
  }
}

const CHECK_SOCKET_UNIT = "check the ListenStream= lines of the service's .socket unit";

export class SystemdSocketError extends Error {
  override readonly name = "SystemdSocketError";

  constructor(problemAndRemedy: string) {
    super(`--web.systemd-socket: ${problemAndRemedy}`);
  }
}

/** The descriptors systemd passed to process `pid` (sd_listen_fds(3): from fd 3); removes the variables that said so from `env`. */
export function takeSystemdSockets(env: Record<string, string | undefined>, pid: number): number[] {
  const { LISTEN_PID: owner, LISTEN_FDS: count } = env;
  // Taken once, so no child process believes the sockets are its own.
  for (const name of ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]) delete env[name];
  if (owner === undefined || count === undefined)
    throw new SystemdSocketError(
      "no socket passed by systemd (LISTEN_PID and LISTEN_FDS are not set); start the exporter from a systemd .socket unit, or leave out --web.systemd-socket",
    );
  if (!/^\d{1,10}$/.test(owner) || Number(owner) !== pid)
    throw new SystemdSocketError(
      "LISTEN_PID names another process: the sockets were passed to it, not to this one; let systemd start the exporter itself (a wrapper script must exec it)",
    );
  // At most 64, so a mistyped count cannot start thousands of servers.
  const n = /^\d{1,3}$/.test(count) ? Number(count) : Number.NaN;
  if (!(n >= 1 && n <= 64)) throw new SystemdSocketError(`LISTEN_FDS: expected a number of sockets from 1 to 64; ${CHECK_SOCKET_UNIT}`);
  return Array.from({ length: n }, (_, i) => 3 + i);
}

function boundUrl(address: AddressInfo | string, scheme: string): string {
  if (typeof address === "string") return `${scheme}+unix://${encodeURIComponent(address)}/`;
  return `${scheme}://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}/`;
}

async function listenOn(app: express.Express, target: ListenTarget, options: ListenOptions): Promise<RunningServer> {
  const { tls, onTlsServer, events, headersTimeoutMs = HEADERS_TIMEOUT_MS, maxConnections } = options;
  const readTimeoutMs = options.readTimeoutSeconds * 1000;
  const limits = {
    headersTimeout: headersTimeoutMs,
    // A backstop behind the read timer below, which fires first and is counted.
    requestTimeout: headersTimeoutMs + readTimeoutMs + 1_000,
    // Node checks for expired headers only this often (30 s by default): each second holds the bound to within 1 s.
    connectionsCheckingInterval: Math.min(1_000, headersTimeoutMs),
    keepAliveTimeout: options.idleTimeoutSeconds * 1000,
  };
  // Node's default handshakeTimeout is 120 s: silent connections would hold descriptors that long.
  const secure = tls === undefined ? undefined : createTlsServer({ ...tls, ...limits, handshakeTimeout: headersTimeoutMs }, app);
  if (secure !== undefined) onTlsServer?.(secure);
  const server: Server | TlsHttpServer = secure ?? createServer(limits, app);
  server.maxHeadersCount = 100;
  const cap = new ConnectionCap(maxConnections, secure !== undefined, events);
  server.on("connection", (socket: Socket) => cap.accept(socket));
  secure?.on("secureConnection", (socket: TLSSocket) => cap.secured(socket));
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const connection = cap.began(socket, readTimeoutMs, () => req.complete);
    const timer = setTimeout(() => {
      events?.writeTimedOut();
      socket.destroy();
    }, options.writeTimeoutSeconds * 1000);
    // "close" comes once, after "finish" or for a response cut short.
    res.once("close", () => {
      clearTimeout(timer);
      cap.answered(connection);
      if (REFUSALS.has(res.statusCode) && !socket.destroyed) {
        cap.read(connection);
        events?.dropped("refused");
        socket.end();
      }
    });
    req.once("close", () => {
      if (req.complete) cap.read(connection);
    });
  });
  server.listen(target);
  await once(server, "listening").catch((error: unknown) => {
    // Node's words name no address for a name that does not resolve, and say only EINVAL for a descriptor that is no socket.
    if (!("fd" in target)) throw new ListenError(addressText(target.host, target.port), error);
    throw new SystemdSocketError(`${libraryErrorText(error, "a descriptor systemd passed is not a socket to serve on")}; ${CHECK_SOCKET_UNIT}`);
  });
  return {
    server,
    url: boundUrl(server.address()!, tls === undefined ? "http" : "https"),
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.closeAllConnections();
          cap.destroyAll();
        }, graceMs);
        const sweep = setInterval(() => server.closeIdleConnections(), 25);
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

export type RunningServers = RunningServer & { urls: string[] };

export async function listenAll(app: express.Express, targets: readonly ListenTarget[], options: ListenOptions): Promise<RunningServers> {
  const servers: RunningServer[] = [];
  try {
    for (const target of targets) servers.push(await listenOn(app, target, options));
  } catch (error) {
    await Promise.all(servers.map((s) => s.close(0)));
    throw error;
  }
  const first = servers[0];
  if (first === undefined) throw new Error("nothing to listen on");
  const close = async (graceMs?: number) => void (await Promise.all(servers.map((s) => s.close(graceMs))));
  return { ...first, urls: servers.map((s) => s.url), close };
}
