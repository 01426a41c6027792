// TLS as the exporter serves it: start-up options, certificate files re-read when they change, the client certificate policy.

import { createHash } from "node:crypto";
import type { Server, TLSSocket, TlsOptions } from "node:tls";
import type { Logger } from "pino";
import { ConfigError } from "../../config/errors.js";
import { libraryErrorText } from "../../util/error-text.js";
import { clientCertRefusal } from "./client-cert-check.js";
import type { TlsServerConfig } from "./web-config-schema.js";
import { readTlsPems, type TlsPems, tlsOptionsFrom } from "./tls-options.js";

/** Go reads the files on every handshake; a busy server looks at them at most this often. */
const TLS_RELOAD_CHECK_MS = 1_000;

// A digest, so a bad key file is not kept in memory to be compared with.
const digestOf = ({ cert, key, clientCa }: TlsPems): string =>
  createHash("sha256")
    .update(Buffer.concat([cert, Buffer.from("\0"), key, Buffer.from("\0"), clientCa ?? Buffer.alloc(0)]))
    .digest("hex");

/** Reads the PEMs now (a ConfigError names a bad one); `attach` hooks the file reload and the client certificate check. */
export function tlsServing(
  tls: TlsServerConfig,
  logger: Pick<Logger, "info" | "warn" | "debug">,
  { reloadCheckMs = TLS_RELOAD_CHECK_MS } = {},
): { options: TlsOptions; attach(server: Server): void } {
  const pems = readTlsPems(tls);
  let served = digestOf(pems);
  let checkedAt = performance.now();
  let refused: string | undefined;
  const refuse = (error: unknown, what: string): void => {
    const problem = error instanceof ConfigError ? error.message : libraryErrorText(error, "web config: TLS files unusable");
    if (`${what} ${problem}` !== refused) logger.warn({ error: problem }, "TLS certificate files changed but cannot be used; the old ones keep serving");
    refused = `${what} ${problem}`;
  };
  const reloadIfChanged = (server: Server): void => {
    if (performance.now() - checkedAt < reloadCheckMs) return;
    checkedAt = performance.now();
    let next: TlsPems;
    try {
      next = readTlsPems(tls);
    } catch (error) {
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
      // Go fails the handshake; Node has finished it by now, so the connection is closed before a request is read.
      server.prependListener("secureConnection", (socket: TLSSocket) => {
        const refusal = clientCertRefusal(socket, tls);
        if (refusal === undefined) return;
        logger.debug({ reason: refusal }, "client certificate refused; connection closed");
        socket.destroy();
      });
    },
  };
}
