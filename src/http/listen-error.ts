// A listen address the exporter cannot serve on: the address, why in our words, and what to do (never Node's message).

import { libraryErrorText } from "../util/error-text.js";

/** host:port as a person types it (IPv6 in brackets, as --web.listen-address takes it). */
export function addressText(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

interface Problem {
  reason: string;
  /** What to do; `setting` is where the person sets the address (a flag, or a variable for the demo). */
  remedy(setting: string): string;
}

const ON_THIS_HOST = (setting: string): string => `set ${setting} to an address of this host, or 0.0.0.0 for all of them`;

/** The failures a person can act on, by Node's code; any other is named by its code alone. */
const PROBLEMS: Readonly<Record<string, Problem>> = {
  EADDRINUSE: { reason: "the address is in use", remedy: (s) => `stop what holds it or set ${s}` },
  EACCES: {
    reason: "permission denied (a port below 1024 needs privileges)",
    remedy: (s) => `set ${s} to a port above 1023, or grant the process CAP_NET_BIND_SERVICE`,
  },
  EADDRNOTAVAIL: { reason: "no interface of this host has that address", remedy: ON_THIS_HOST },
  EAFNOSUPPORT: { reason: "this host does not support that address family (IPv6 or IPv4)", remedy: ON_THIS_HOST },
  ENOTFOUND: { reason: "no such host name or IP address", remedy: ON_THIS_HOST },
  EAI_NONAME: { reason: "no such host name or IP address", remedy: ON_THIS_HOST },
  EAI_AGAIN: { reason: "the host name could not be looked up (DNS did not answer)", remedy: (s) => `set ${s} to an IP address instead of a name` },
  EAI_FAIL: { reason: "the host name could not be looked up (DNS failed)", remedy: (s) => `set ${s} to an IP address instead of a name` },
};

/** Listening on one address failed: `address` names it, `reason` says why, `remedy()` what to do. */
export class ListenError extends Error {
  override readonly name = "ListenError";
  readonly reason: string;
  private readonly problem: Problem;

  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: unknown } | null | undefined)?.code;
    const known = typeof code === "string" ? PROBLEMS[code] : undefined;
    const problem = known ?? { reason: libraryErrorText(cause, "the address cannot be used"), remedy: (s: string) => `check ${s}` };
    super(`cannot listen on ${address}: ${problem.reason}`);
    this.reason = problem.reason;
    this.problem = problem;
  }

  /** The whole start-up line after the program's name: where, why, and what to do with `setting`. */
  line(setting: string): string {
    return `${this.message}; ${this.problem.remedy(setting)}`;
  }
}
