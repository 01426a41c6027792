// TLS as the exporter serves it: the options at start-up, certificate files re-read when they change (as the
// toolkit re-reads them per handshake), the client certificate policy per connection.

import { createHash } from "node:crypto";
import type { Server, TLSSocket, TlsOptions } from "node:tls";
import type { Logger } from "pino";
import { ConfigError } from "../config/errors.js";
import { libraryErrorText } from "../util/error-text.js";
import { clientCertRefusal } from "./client-cert-check.js";
import type { TlsServerConfig } from "./web-config-schema.js";
import { readTlsPems, type TlsPems, tlsOptionsFrom } from "./tls-options.js";

/** The files are looked at no more often than this: Go reads them on every handshake, which a busy server need not copy. */
const TLS_RELOAD_CHECK_MS = 1_000;

// A digest, so a bad key file is not kept in memory to be compared with.
const digestOf = ({ cert, key, clientCa }: TlsPems): string =>
  createHash("sha256")
    .update(Buffer.concat([cert, Buffer.from("\0"), key, Buffer.from("\0"), clientCa ?? Buffer.alloc(0)]))
    .digest("hex");

/**
 * Reads the PEMs now (a ConfigError names a bad one) and returns what the server needs: the `options` it
 * starts with, and `attach`, which hooks the file reload and the client certificate check into it.
 */
export function tlsServing(
  tls: TlsServerConfig,
  logger: Pick<Logger, "info" | "warn" | "debug">,
  { reloadCheckMs = TLS_RELOAD_CHECK_MS } = {},
): { options: TlsOptions; attach(server: Server): void } {
  const pems = readTlsPems(tls);
  let served = digestOf(pems);
  let checkedAt = performance.now();
  // The last problem told, so the same bad files are reported once.
  let refused: string | undefined;
  const refuse = (error: unknown, what: string): void => {
    const problem = error instanceof ConfigError ? error.message : libraryErrorText(error, "web config: TLS files unusable");
    if (`${what} ${problem}` !== refused) logger.warn({ error: problem }, "TLS certificate files changed but cannot be used; the old ones keep serving");
    refused = `${what} ${problem}`;
  };
  // Whatever goes wrong, the connection is served with the context it has.
  const reloadIfChanged = (server: Server): void => {
    if (performance.now() - checkedAt < reloadCheckMs) return;
    checkedAt = performance.now();
    let next: TlsPems;
    try {
      next = readTlsPems(tls);
    } catch (error) {
      // A file half-way through being replaced (gone, or unreadable) leaves the old context serving.
      return refuse(error, "read");
    }
    const digest = digestOf(next);
    if (digest !== served) {
      try {
        server.setSecureContext(tlsOptionsFrom(tls, next));
      } catch (error) {
        return refuse(error, digest);
      }
      served = digest;
      logger.info("TLS certificate files changed: new connections use them");
    }
    refused = undefined;
  };
  const watchesFiles = [tls.cert, tls.key, tls.clientCa].some((source) => source !== undefined && "file" in source);
  return {
    options: tlsOptionsFrom(tls, pems),
    attach(server) {
      // Before Node wraps the connection in TLS, so this very connection gets a renewed certificate.
      if (watchesFiles) server.prependListener("connection", () => reloadIfChanged(server));
      if (tls.clientAuthType === "NoClientCert") return;
      // Go fails the handshake; Node has finished it when this runs, so the connection is closed before
      // a request is read, as Node itself does for an unverified certificate: the client sees a reset.
      server.prependListener("secureConnection", (socket: TLSSocket) => {
        const refusal = clientCertRefusal(socket, tls);
        if (refusal === undefined) return;
        logger.debug({ reason: refusal }, "client certificate refused; connection closed");
        socket.destroy();
      });
    },
  };
}
