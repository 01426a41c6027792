// What Node's TLS switches cannot say about a client certificate: Go's policies past request/reject, and the SAN allow-list.

import type { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import type { TlsServerConfig } from "./web-config-schema.js";

/** An IP address as one spelling (Node writes ::1 as 0:0:0:0:0:0:0:1, Go as ::1); anything else as it is. */
function canonical(value: string): string {
  return isIP(value) === 6 ? new URL(`http://[${value}]/`).hostname.slice(1, -1) : value;
}

/**
 * The values of Node's subjectAltName text ("DNS:a, IP Address:127.0.0.1, URI:\"x\\u002cy\""): DNS names,
 * IP addresses, e-mail addresses and URIs, the four kinds Go compares. Node quotes a value holding a comma.
 */
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

/** Whether the certificate carries one of the allowed SANs, compared exactly as Go's toolkit does. */
function hasAllowedSan(cert: X509Certificate, allowed: readonly string[]): boolean {
  const wanted = new Set(allowed.map(canonical));
  return subjectAltNames(cert.subjectAltName).some((name) => wanted.has(name));
}

/**
 * Checks a finished handshake against the policy; undefined admits it, else the `reason` word: the
 * certificate is missing, unverified or has no allowed SAN. Go fails the handshake in these cases; Node
 * has finished it by now, so the caller closes the connection before any request is read.
 */
export function clientCertRefusal(
  socket: TLSSocket,
  policy: Pick<TlsServerConfig, "clientAuthType" | "clientAllowedSans">,
): "missing" | "unverified" | "san" | undefined {
  const { clientAuthType: type, clientAllowedSans: sans } = policy;
  if (type === "NoClientCert") return undefined;
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined) {
    // Go's toolkit checks the SAN list on whatever was sent: nothing sent matches nothing.
    return type === "RequireAnyClientCert" || type === "RequireAndVerifyClientCert" || sans !== undefined ? "missing" : undefined;
  }
  if ((type === "VerifyClientCertIfGiven" || type === "RequireAndVerifyClientCert") && !socket.authorized) return "unverified";
  if (sans !== undefined && !hasAllowedSan(cert, sans)) return "san";
  return undefined;
}
