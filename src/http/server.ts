// Starts the HTTP server with bounded inbound timeouts, and stops it gracefully.

import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TlsOptions as NodeTlsOptions } from "node:tls";
import type express from "express";

export type TlsOptions = NodeTlsOptions;

/** A client must have sent its request's headers within this long (slowloris). */
export const HEADERS_TIMEOUT_MS = 10_000;

export interface RunningServer {
  server: Server;
  /** http(s)://host:port/ as bound (port 0 resolved). */
  url: string;
  /** Stops accepting, lets in-flight requests finish within `graceMs`, then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

/** Serves `app` on host:port, over TLS when `tls` is given. */
export async function listen(
  app: express.Express,
  host: string,
  port: number,
  tls?: TlsOptions,
  headersTimeoutMs = HEADERS_TIMEOUT_MS,
): Promise<RunningServer> {
  const limits = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: 120_000,
    // Node looks for expired headers and requests only this often (30 s by default), so the
    // 10 s header timeout held anywhere up to 40 s; checked every second it holds to within 1 s.
    connectionsCheckingInterval: 1_000,
  };
  const server: Server = tls === undefined ? createServer(limits, app) : createTlsServer({ ...tls, ...limits }, app);
  server.keepAliveTimeout = 65_000;
  server.maxHeadersCount = 100;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `${tls === undefined ? "http" : "https"}://${shownHost}:${address.port}/`,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        // A keep-alive connection turns idle when its in-flight scrape is answered: close it then.
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
