// Why a venue call failed, as one of a fixed set of reasons the runner turns into labels.

export const FAILURE_REASONS = [
  "timeout",
  "network",
  "tls",
  "redirect",
  "rate_limited",
  "auth",
  "http_4xx",
  "http_5xx",
  "too_large",
  "invalid_encoding",
  "invalid_json",
  "invalid_schema",
  "internal",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** A failed venue call. The message names the endpoint and path, never a host's credential or a header; `httpStatus` is the venue's, when it answered one. */
export class VenueError extends Error {
  override readonly name = "VenueError";

  constructor(
    readonly reason: FailureReason,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly httpStatus?: number,
  ) {
    super(message);
  }
}
