// The result of one endpoint in one scrape: success, time taken, and why it failed.

import type { Endpoint } from "../venue/endpoints.js";
import type { FailureReason } from "../venue/errors.js";

export interface EndpointOutcome {
  endpoint: Endpoint;
  /** Undefined for the public market list, which belongs to no account. */
  account: string | undefined;
  ok: boolean;
  durationSeconds: number;
  reason: FailureReason | undefined;
  /** One line, safe to log: it names paths and statuses, never credentials. */
  message: string | undefined;
  /** Seconds the venue asked us to wait before calling this endpoint again (Retry-After on 429/418). */
  retryAfterSeconds?: number | undefined;
}
