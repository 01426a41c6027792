// TLS as the exporter serves it: the options at start-up, certificate files re-read when they change, the client certificate policy per connection.

import type { Server, TLSSocket, TlsOptions } from "node:tls";
import type { Logger } from "pino";
import { libraryErrorText } from "../util/error-text.js";
import { clientCertRefusal } from "./client-cert-check.js";
import type { TlsServerConfig } from "./tls-config.js";
import { readTlsPems, tlsOptionsFrom } from "./tls-options.js";
import { TLS_RELOAD_CHECK_MS, TlsReloader } from "./tls-reload.js";

export interface TlsServing {
  /** What the server starts with. */
  options: TlsOptions;
  /** Hooks the file reload and the client certificate check into the TLS server just created from `options`. */
  attach(server: Server): void;
}

export interface TlsServingOptions {
  reloadCheckMs?: number;
}

type Log = Pick<Logger, "info" | "warn" | "debug">;

/** Reads the PEMs now (a ConfigError names a bad one) and returns what the server needs. */
export function tlsServing(tls: TlsServerConfig, logger: Log, options: TlsServingOptions = {}): TlsServing {
  const pems = readTlsPems(tls);
  const reloader = new TlsReloader(tls, pems, options.reloadCheckMs ?? TLS_RELOAD_CHECK_MS);
  const reloadIfChanged = (server: Server): void => {
    try {
      const outcome = reloader.poll();
      if (outcome.kind === "reloaded") {
        server.setSecureContext(outcome.options);
        logger.info("TLS certificate files changed: new connections use them");
      } else if (outcome.kind === "refused" && !outcome.repeated) {
        logger.warn({ error: outcome.problem }, "TLS certificate files changed but cannot be used; the old ones keep serving");
      }
    } catch (error) {
      // Whatever goes wrong, the connection is served with the context it has.
      logger.warn({ error: libraryErrorText(error, "TLS reload failed") }, "TLS certificate files changed but cannot be used; the old ones keep serving");
    }
  };
  return {
    options: tlsOptionsFrom(tls, pems),
    attach(server) {
      // Before Node wraps the connection in TLS, so this very connection gets a renewed certificate.
      if (reloader.watchesFiles) server.prependListener("connection", () => reloadIfChanged(server));
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
