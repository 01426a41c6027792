// Notices when the certificate, key or client CA files change and builds new TLS options from them, as the toolkit re-reads them per handshake.

import { createHash } from "node:crypto";
import type { TlsOptions } from "node:tls";
import { ConfigError } from "../config/errors.js";
import { libraryErrorText } from "../util/error-text.js";
import type { TlsServerConfig } from "./tls-config.js";
import { readTlsPems, type TlsPems, tlsOptionsFrom } from "./tls-options.js";

/** The files are looked at no more often than this: Go reads them on every handshake, which a busy server need not copy. */
export const TLS_RELOAD_CHECK_MS = 1_000;

export type TlsReloadOutcome =
  | { kind: "unchanged" }
  | { kind: "reloaded"; options: TlsOptions }
  /** `repeated`: the same bad files as last time, already reported. */
  | { kind: "refused"; problem: string; repeated: boolean };

const samePems = (a: TlsPems, b: TlsPems): boolean =>
  a.cert.equals(b.cert) &&
  a.key.equals(b.key) &&
  (a.clientCa === undefined ? b.clientCa === undefined : b.clientCa !== undefined && a.clientCa.equals(b.clientCa));

// A digest, so the bad key file is not kept in memory to be compared with.
const digestOf = (pems: TlsPems): string =>
  createHash("sha256")
    .update(pems.cert)
    .update("\0")
    .update(pems.key)
    .update("\0")
    .update(pems.clientCa ?? "")
    .digest("hex");

export class TlsReloader {
  private current: TlsPems;
  private checkedAt: number;
  private refused: string | undefined;

  constructor(
    private readonly tls: TlsServerConfig,
    served: TlsPems,
    private readonly intervalMs = TLS_RELOAD_CHECK_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.current = served;
    this.checkedAt = now();
  }

  /** Whether any PEM comes from a file; inline ones change only with a restart. */
  get watchesFiles(): boolean {
    return [this.tls.cert, this.tls.key, this.tls.clientCa].some((source) => source !== undefined && "file" in source);
  }

  /** Reads the files if the last look is `intervalMs` old; new options when they changed into a usable set. */
  poll(): TlsReloadOutcome {
    if (this.now() - this.checkedAt < this.intervalMs) return { kind: "unchanged" };
    this.checkedAt = this.now();
    let next: TlsPems;
    try {
      next = readTlsPems(this.tls);
    } catch (error) {
      // A file half-way through being replaced (gone, or unreadable) leaves the old context serving.
      return this.refuse(error, "read");
    }
    if (samePems(next, this.current)) {
      this.refused = undefined;
      return { kind: "unchanged" };
    }
    try {
      const options = tlsOptionsFrom(this.tls, next);
      this.current = next;
      this.refused = undefined;
      return { kind: "reloaded", options };
    } catch (error) {
      return this.refuse(error, digestOf(next));
    }
  }

  private refuse(error: unknown, what: string): TlsReloadOutcome {
    const problem = error instanceof ConfigError ? error.message : libraryErrorText(error, "web config: TLS files unusable");
    const key = `${what} ${problem}`;
    const repeated = key === this.refused;
    this.refused = key;
    return { kind: "refused", problem, repeated };
  }
}
