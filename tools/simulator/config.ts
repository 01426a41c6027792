// Simulator options, the size profiles, and their validation into one resolved configuration.
import { validateFaultList } from "./faults.js";
import type { CollateralSpec, FaultSpec, ProfileName, TimeUnit } from "./types.js";

export interface SimulatorOptions {
  /** Default "127.0.0.1". */
  host?: string;
  /** Default 0 (ephemeral); the CLI defaults to 8080. */
  port?: number;
  /** Default 1. */
  seed?: number;
  /** Default "sim-key". */
  apiKey?: string;
  /** Default "X-Api-Key"; matched case-insensitively. */
  apiKeyHeader?: string;
  /** Default 1000; 0 = no timer, state moves only on POST /_sim/tick or tick(). */
  tickMs?: number;
  /** Default "small". */
  profile?: ProfileName;
  markets?: number;
  positions?: number;
  activeOrders?: number;
  historyOrders?: number;
  /** Default: USDC detailed, USDT summary (and BTC detailed for the large and huge profiles). */
  collaterals?: CollateralSpec[];
  /** Unit of order timestamps, default "ms". */
  timeUnit?: TimeUnit;
  /** Simulated wall clock at tick 0, in ms since the epoch; default now, so order ages are real ones. Fix it for reproducible runs. */
  epochMs?: number;
  /** Initial faults. */
  faults?: FaultSpec[];
  /** Bench mode: every private answer differs from the last in one number (see moving.ts). Default false. */
  moving?: boolean;
  /** Accounts served, each with its own key and state (see desk.ts). Default 1: the one key `apiKey`. */
  accounts?: number;
  /** Every venue answer held this long (±10%, drawn from the seed), as a venue that far away would be. Default 0. */
  latencyMs?: number;
}

export interface SimConfig {
  host: string;
  port: number;
  seed: number;
  apiKey: string;
  apiKeyHeader: string;
  tickMs: number;
  profile: ProfileName;
  markets: number;
  positions: number;
  activeOrders: number;
  historyOrders: number;
  collaterals: CollateralSpec[];
  timeUnit: TimeUnit;
  epochMs: number;
  faults: FaultSpec[];
  moving: boolean;
  accounts: number;
  latencyMs: number;
}

interface ProfileSizes {
  markets: number;
  positions: number;
  activeOrders: number;
  historyOrders: number;
  collaterals: CollateralSpec[];
}

const TWO_COLLATERALS: CollateralSpec[] = [
  { id: "USDC", shape: "detailed" },
  { id: "USDT", shape: "summary" },
];
const THREE_COLLATERALS: CollateralSpec[] = [...TWO_COLLATERALS, { id: "BTC", shape: "detailed" }];

export const PROFILES: Readonly<Record<ProfileName, ProfileSizes>> = {
  small: { markets: 20, positions: 5, activeOrders: 50, historyOrders: 200, collaterals: TWO_COLLATERALS },
  large: { markets: 500, positions: 200, activeOrders: 5_000, historyOrders: 1_000, collaterals: THREE_COLLATERALS },
  huge: { markets: 2_000, positions: 200, activeOrders: 50_000, historyOrders: 1_000, collaterals: THREE_COLLATERALS },
};

/** The active list is one answer: 100,000 orders are 61 MB; 1,000,000 took 1.1 GB and then answered 500. */
export const MAX_ACTIVE_ORDERS = 100_000;

/** A desk split over shards (bench:shards); an account's state is derived when asked, so the count costs no memory. */
export const MAX_ACCOUNTS = 10_000;
/** A venue a minute away is no venue; the bound keeps a typo from hanging every request. */
const MAX_LATENCY_MS = 60_000;

export class SimulatorConfigError extends Error {
  override name = "SimulatorConfigError";
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`${option}: ${message}`);
  }
}

function integerIn(option: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SimulatorConfigError(option, `must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function nonEmptyString(option: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value.length === 0) throw new SimulatorConfigError(option, "must be a non-empty string");
  return value;
}

/** A key the exporter can send: printable ASCII, no line break (a header value cannot hold one). */
function headerValue(option: string, value: string): string {
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value))
    throw new SimulatorConfigError(option, "must be printable ASCII without line breaks or edge spaces (an HTTP header value)");
  return value;
}

function oneOf<T extends string>(option: string, value: T | undefined, fallback: T, allowed: readonly T[]): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) throw new SimulatorConfigError(option, `must be one of ${allowed.join(", ")}, got ${String(value)}`);
  return value;
}

function checkCollaterals(list: CollateralSpec[]): CollateralSpec[] {
  if (!Array.isArray(list) || list.length === 0) throw new SimulatorConfigError("collaterals", "must list at least one collateral");
  const seen = new Set<string>();
  return list.map((c, i) => {
    if (typeof c.id !== "string" || !/^[A-Za-z0-9_]{1,16}$/.test(c.id)) {
      throw new SimulatorConfigError(`collaterals[${i}].id`, "must be 1-16 letters, digits or _");
    }
    if (seen.has(c.id)) throw new SimulatorConfigError(`collaterals[${i}].id`, `duplicate collateral ${c.id}`);
    seen.add(c.id);
    return { id: c.id, shape: oneOf(`collaterals[${i}].shape`, c.shape, "detailed", ["detailed", "summary"]) };
  });
}

export function resolveConfig(opts: SimulatorOptions = {}): SimConfig {
  const profile = oneOf("profile", opts.profile, "small", ["small", "large", "huge"]);
  const sizes = PROFILES[profile];
  const apiKeyHeader = nonEmptyString("apiKeyHeader", opts.apiKeyHeader, "X-Api-Key");
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(apiKeyHeader)) throw new SimulatorConfigError("apiKeyHeader", "is not a valid header name");
  return {
    host: nonEmptyString("host", opts.host, "127.0.0.1"),
    port: integerIn("port", opts.port, 0, 0, 65535),
    seed: integerIn("seed", opts.seed, 1, -(2 ** 31), 2 ** 32 - 1),
    apiKey: headerValue("apiKey", nonEmptyString("apiKey", opts.apiKey, "sim-key")),
    apiKeyHeader,
    tickMs: integerIn("tickMs", opts.tickMs, 1000, 0, 86_400_000),
    profile,
    markets: integerIn("markets", opts.markets, sizes.markets, 1, 100_000),
    positions: integerIn("positions", opts.positions, sizes.positions, 0, 100_000),
    activeOrders: integerIn("activeOrders", opts.activeOrders, sizes.activeOrders, 0, MAX_ACTIVE_ORDERS),
    historyOrders: integerIn("historyOrders", opts.historyOrders, sizes.historyOrders, 0, 1_000_000),
    collaterals: checkCollaterals(opts.collaterals ?? sizes.collaterals),
    timeUnit: oneOf("timeUnit", opts.timeUnit, "ms", ["s", "ms", "us", "ns"]),
    epochMs: integerIn("epochMs", opts.epochMs, Date.now(), 0, 8_640_000_000_000),
    faults: opts.faults === undefined ? [] : validateFaultList(opts.faults),
    moving: opts.moving === true,
    accounts: integerIn("accounts", opts.accounts, 1, 1, MAX_ACCOUNTS),
    latencyMs: integerIn("latencyMs", opts.latencyMs, 0, 0, MAX_LATENCY_MS),
  };
}
