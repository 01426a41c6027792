// A listen address the exporter cannot serve on: the address, why in our words, and what to do (never Node's message).

import { libraryErrorText } from "../util/error-text.js";

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
