// Wraps every endpoint call: times it and turns any failure into an outcome with a reason.

import type { Endpoint } from "../venue/endpoints.js";
import { VenueError } from "../venue/errors.js";
import type { EndpointOutcome } from "./result.js";
import { libraryErrorText } from "../util/error-text.js";

/** Never throws: anything but a VenueError is a bug, reported as `internal` without its message (it can quote a header). */
export async function runEndpoint<T>(endpoint: Endpoint, account: string | undefined, call: () => Promise<T>) {
  const started = performance.now();
  const done = (ok: boolean, error?: unknown): EndpointOutcome => ({
    endpoint,
    account,
    ok,
    durationSeconds: (performance.now() - started) / 1000,
    reason: ok ? undefined : error instanceof VenueError ? error.reason : "internal",
    message: ok ? undefined : error instanceof VenueError ? error.message : libraryErrorText(error, `${endpoint}: unexpected failure`),
    retryAfterSeconds: error instanceof VenueError ? error.retryAfterSeconds : undefined,
    httpStatus: error instanceof VenueError ? error.httpStatus : undefined,
  });
  try {
    const value = await call();
    return { outcome: done(true), value };
  } catch (error) {
    return { outcome: done(false, error), value: undefined };
  }
}

/** Several calls of one endpoint (account-info per collateral) as one outcome: ok only if all were. */
export function mergeOutcomes(endpoint: Endpoint, account: string, outcomes: EndpointOutcome[]): EndpointOutcome {
  const failed = outcomes.find((o) => !o.ok);
  const durationSeconds = Math.max(0, ...outcomes.map((o) => o.durationSeconds));
  return { endpoint, account, ok: failed === undefined, durationSeconds, reason: failed?.reason, message: failed?.message, httpStatus: failed?.httpStatus };
}
