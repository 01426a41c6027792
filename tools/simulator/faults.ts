// Fault specifications: validation (control API, options, CLI flag) and the active set that requests draw from.
import { FAULT_KINDS, SIM_ENDPOINTS, type FaultKind, type FaultSpec, type QuirkKind, type SimEndpoint } from "./types.js";
import { HISTORY_QUIRKS, isQuirk } from "./venue-quirks.js";

export class FaultSpecError extends Error {
  override name = "FaultSpecError";
}

const MAX_LATENCY_MS = 600_000;
const MAX_BYTES = 1024 * 1024 * 1024;
const KEYS = new Set(["endpoint", "kind", "latencyMs", "status", "retryAfter", "bytes", "location", "times"]);

function isEndpoint(value: unknown): value is SimEndpoint | "*" {
  return value === "*" || SIM_ENDPOINTS.includes(value as SimEndpoint);
}

function isKind(value: unknown): value is FaultKind {
  return FAULT_KINDS.includes(value as FaultKind);
}

function intField(where: string, key: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new FaultSpecError(`${where}.${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Validate one fault spec from untrusted JSON; the message names the offending field. */
export function validateFaultSpec(input: unknown, where = "fault"): FaultSpec {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new FaultSpecError(`${where} must be an object`);
  const raw = input as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!KEYS.has(key)) throw new FaultSpecError(`${where}.${key} is not a fault field`);
  }
  if (!isEndpoint(raw.endpoint)) throw new FaultSpecError(`${where}.endpoint must be one of ${SIM_ENDPOINTS.join(", ")}, *`);
  if (!isKind(raw.kind)) throw new FaultSpecError(`${where}.kind must be one of ${FAULT_KINDS.join(", ")}`);
  if (HISTORY_QUIRKS.has(raw.kind) && raw.endpoint !== "orders_history" && raw.endpoint !== "*") {
    throw new FaultSpecError(`${where}.kind ${raw.kind} applies to orders_history only`);
  }
  const spec: FaultSpec = { endpoint: raw.endpoint, kind: raw.kind };
  if (raw.latencyMs !== undefined) spec.latencyMs = intField(where, "latencyMs", raw.latencyMs, 0, MAX_LATENCY_MS);
  if (raw.status !== undefined) {
    const [min, max] = raw.kind === "redirect" ? [300, 399] : [100, 599];
    spec.status = intField(where, "status", raw.status, min, max);
  }
  if (raw.retryAfter !== undefined) {
    if (typeof raw.retryAfter !== "string" || !/^[\x20-\x7e]*$/.test(raw.retryAfter)) {
      throw new FaultSpecError(`${where}.retryAfter must be a printable ASCII string`);
    }
    // Text that is no number (a date, garbage) is sent as given; a number of seconds is one a venue can mean.
    if (/^\s*[-+]?[\d.]/.test(raw.retryAfter) && !/^\d+$/.test(raw.retryAfter.trim())) {
      throw new FaultSpecError(`${where}.retryAfter as a number must be whole seconds from 0, got ${JSON.stringify(raw.retryAfter)}`);
    }
    spec.retryAfter = raw.retryAfter;
  }
  if (raw.bytes !== undefined) spec.bytes = intField(where, "bytes", raw.bytes, 1, MAX_BYTES);
  if (raw.location !== undefined) {
    if (typeof raw.location !== "string" || !/^[\x21-\x7e]+$/.test(raw.location)) {
      throw new FaultSpecError(`${where}.location must be a non-empty URL without spaces`);
    }
    spec.location = raw.location;
  }
  if (raw.times !== undefined) spec.times = intField(where, "times", raw.times, 1, Number.MAX_SAFE_INTEGER);
  return spec;
}

export function validateFaultList(input: unknown): FaultSpec[] {
  if (!Array.isArray(input)) throw new FaultSpecError("faults must be an array of fault specs");
  return input.map((item, i) => validateFaultSpec(item, `faults[${i}]`));
}

/** Which numeric field the optional ARG of `--fault ENDPOINT:KIND[:ARG]` sets, per kind. */
const ARG_FIELD: Partial<Record<FaultKind, "latencyMs" | "status" | "bytes">> = {
  latency: "latencyMs",
  trickle: "latencyMs",
  status: "status",
  redirect: "status",
  oversized: "bytes",
  empty_objects: "bytes",
  gzip_bomb: "bytes",
};

/** Parse `ENDPOINT:KIND[:ARG[:RETRY_AFTER]]` (RETRY_AFTER only for kind status). */
export function parseFaultFlag(text: string): FaultSpec {
  const [endpoint, kind, arg, retryAfter, ...rest] = text.split(":");
  const where = `--fault ${text}`;
  if (rest.length > 0 || endpoint === undefined || kind === undefined) {
    throw new FaultSpecError(`${where}: expected ENDPOINT:KIND[:ARG]`);
  }
  const raw: Record<string, unknown> = { endpoint, kind };
  if (arg !== undefined) {
    const field = isKind(kind) ? ARG_FIELD[kind] : undefined;
    if (field === undefined) throw new FaultSpecError(`${where}: kind ${kind} takes no argument`);
    if (!/^\d+$/.test(arg)) throw new FaultSpecError(`${where}: ${field} must be a non-negative integer`);
    raw[field] = Number(arg);
  }
  if (retryAfter !== undefined) {
    if (kind !== "status") throw new FaultSpecError(`${where}: only kind status takes a Retry-After part`);
    raw.retryAfter = retryAfter;
  }
  try {
    return validateFaultSpec(raw, "fault");
  } catch (err) {
    throw new FaultSpecError(`${where}: ${(err as Error).message.replace(/^fault\./, "")}`);
  }
}

interface ActiveFault {
  spec: FaultSpec;
  remaining: number | undefined;
}

/** The active faults; the first one matching a request's endpoint applies, and `times` counts down. */
export class FaultSet {
  private active: ActiveFault[] = [];

  constructor(initial: FaultSpec[] = []) {
    this.replace(initial);
  }

  replace(specs: FaultSpec[]): void {
    this.active = specs.map((spec) => ({ spec: { ...spec }, remaining: spec.times }));
  }

  clear(): void {
    this.active = [];
  }

  /** Current faults, `times` showing what is left of the count. */
  list(): FaultSpec[] {
    return this.active.map(({ spec, remaining }) => (remaining === undefined ? { ...spec } : { ...spec, times: remaining }));
  }

  /** Every quirk for this request (they compose); consumes one use of each counted one. */
  quirks(endpoint: SimEndpoint): QuirkKind[] {
    const found: QuirkKind[] = [];
    for (const f of [...this.active]) {
      const kind = f.spec.kind;
      if (!isQuirk(kind) || (f.spec.endpoint !== "*" && f.spec.endpoint !== endpoint)) continue;
      if (kind.startsWith("history_") && endpoint !== "orders_history") continue;
      found.push(kind);
      this.#use(f);
    }
    return found;
  }

  #use(found: ActiveFault): void {
    if (found.remaining === undefined) return;
    found.remaining -= 1;
    if (found.remaining <= 0) this.active.splice(this.active.indexOf(found), 1);
  }

  /** The fault (not a quirk) for this request, if any; consumes one use of a counted fault. */
  take(endpoint: SimEndpoint): FaultSpec | undefined {
    const index = this.active.findIndex((f) => !isQuirk(f.spec.kind) && (f.spec.endpoint === "*" || f.spec.endpoint === endpoint));
    const found = this.active[index];
    if (found === undefined) return undefined;
    if (found.remaining !== undefined) {
      found.remaining -= 1;
      if (found.remaining <= 0) this.active.splice(index, 1);
    }
    return found.spec;
  }
}
