// What Node's TLS switches cannot say about a client certificate: Go's policies past request/reject, and the SAN allow-list.

import type { X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import type { TlsServerConfig } from "./web-config-schema.js";

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

function hasAllowedSan(cert: X509Certificate, allowed: readonly string[]): boolean {
  const wanted = new Set(allowed.map(canonical));
  return subjectAltNames(cert.subjectAltName).some((name) => wanted.has(name));
}

/** Undefined admits a finished handshake; else why the policy refuses it. */
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
