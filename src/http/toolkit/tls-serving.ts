// TLS as served: certificate files re-read when they change, and the client certificate policies Node's TLS options cannot say.

import { hash } from "node:crypto";
import { isIP } from "node:net";
import type { Server, TLSSocket, TlsOptions } from "node:tls";
import type { Logger } from "pino";
import { ConfigError } from "../../config/errors.js";
import { libraryErrorText } from "../../util/error-text.js";
import { readTlsPems, type TlsPems, type TlsServerConfig, tlsOptionsFrom } from "./tls-config.js";

/** Go reads the files on every handshake; a busy server looks at them at most this often. */
const TLS_RELOAD_CHECK_MS = 1_000;

/** An IP address as one spelling (Node writes ::1 as 0:0:0:0:0:0:0:1, Go as ::1); anything else as it is. */
function canonical(value: string): string {
  return isIP(value) === 6 ? new URL(`http://[${value}]/`).hostname.slice(1, -1) : value;
}

/** The DNS, IP, e-mail and URI values of Node's subjectAltName text, the kinds Go compares; Node quotes a value holding a comma. */
export function subjectAltNames(text: string | undefined): string[] {
  const names: string[] = [];
  const entry = /(DNS|IP Address|email|URI|[^:,]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/gy;
  for (const [, kind = "", raw = ""] of (text ?? "").matchAll(entry)) {
    if (!["DNS", "IP Address", "email", "URI"].includes(kind)) continue;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        continue;
      }
    }
    names.push(kind === "IP Address" ? canonical(value) : value);
  }
  return names;
}

/** Undefined admits a finished handshake; else why the policy refuses it. */
function clientCertRefusal(socket: TLSSocket, { clientAuthType: type, clientAllowedSans: sans }: TlsServerConfig): string | undefined {
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined) {
    // Go's toolkit checks the SAN list on whatever was sent: nothing sent matches nothing.
    return type === "RequireAnyClientCert" || type === "RequireAndVerifyClientCert" || sans !== undefined ? "missing" : undefined;
  }
  if ((type === "VerifyClientCertIfGiven" || type === "RequireAndVerifyClientCert") && !socket.authorized) return "unverified";
  const wanted = new Set(sans?.map(canonical));
  return sans === undefined || subjectAltNames(cert.subjectAltName).some((name) => wanted.has(name)) ? undefined : "san";
}

// A digest, so a bad key file is not kept in memory to be compared with.
const digestOf = ({ cert, key, clientCa }: TlsPems): string =>
  hash("sha256", Buffer.concat([cert, Buffer.from("\0"), key, Buffer.from("\0"), clientCa ?? Buffer.alloc(0)]));

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
  const reloadIfChanged = (server: Server): void => {
    if (performance.now() - checkedAt < reloadCheckMs) return;
    checkedAt = performance.now();
    let digest = "unread";
    try {
      const next = readTlsPems(tls);
      digest = digestOf(next);
      if (digest !== served) {
        server.setSecureContext(tlsOptionsFrom(tls, next));
        served = digest;
        logger.info("TLS certificate files changed: new connections use them");
      }
      refused = undefined;
    } catch (error) {
      const problem = error instanceof ConfigError ? error.message : libraryErrorText(error, "web config: TLS files unusable");
      // Once for the same files and problem, however many connections arrive.
      if (`${digest} ${problem}` !== refused) logger.warn({ error: problem }, "TLS certificate files changed but cannot be used; the old ones keep serving");
      refused = `${digest} ${problem}`;
    }
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
