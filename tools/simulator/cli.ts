// Command-line parsing for the simulator and the start-up routine main.ts runs (testable without a process).
import { SimulatorConfigError, resolveConfig, type SimulatorOptions } from "./config.js";
import { exporterConfigYaml } from "./exporter-config.js";
import { FaultSpecError, parseFaultFlag } from "./faults.js";
import { startSimulator, type RunningSimulator } from "./server.js";
import type { CollateralSpec, FaultSpec, ProfileName, TimeUnit } from "./types.js";

export const USAGE = `Usage: node dist/simulator/main.js [options]

A deterministic, seeded, in-memory simulation of the trading venue's read API.

Options:
  --host HOST                 address to listen on (default 127.0.0.1)
  --port N                    port, 0 for any free one (default 8080)
  --seed N                    PRNG seed; same seed and --epoch-ms, same state and ticks (default 1)
  --tick-ms N                 ms between state ticks; 0 = only on POST /_sim/tick (default 1000)
  --profile small|large|huge  size of the generated state (default small)
  --markets N, --positions N, --active-orders N, --history-orders N
                              override the profile's sizes (--active-orders at most 100000)
  --collateral ID:SHAPE       a collateral, SHAPE detailed or summary; repeatable, replaces the default list
  --api-key KEY               key the private endpoints require (default sim-key)
  --api-key-header NAME       header carrying the key (default X-Api-Key)
  --time-unit s|ms|us|ns      unit of order timestamps (default ms)
  --epoch-ms N|now            simulated clock at start, ms since 1970 (default now: order ages are
                              real ones); a fixed N makes runs with the same seed reproducible
  --fault ENDPOINT:KIND[:ARG] inject a fault; repeatable. ENDPOINT: account_info, orders_history,
                              orders_active, markets or *. ARG: latencyMs (latency, trickle), status
                              (status, redirect; status:CODE:RETRY_AFTER adds Retry-After), bytes
                              (oversized, empty_objects, gzip_bomb). Quirks compose with each other and with faults:
                              orders_history:history_ignores_offset, history_ignores_limit,
                              history_overlaps, history_more_than_limit; ENDPOINT:odd_strings (lone
                              surrogates, a market twin, a label across the 128-unit cut);
                              ENDPOINT:unset_times (createdAt 0, -1 or absent, updatedAt 0);
                              ENDPOINT:empty_rejections (orders not rejected carry
                              rejectionReason {"code":"","message":""})
  --latency-ms N              hold every venue answer N ms (±10%, drawn from --seed), as a venue that far
                              away would (default 0); the control API answers at once
  --moving                    bench mode: every private answer differs from the last in one number
  --accounts N                accounts served (up to 10000), each its own state and key KEY-1..KEY-N (default
                              1: the key KEY itself), sharing the markets; the scenarios and /_sim/state act on the first
  --print-exporter-config     print the exporter's YAML config for these accounts at http://HOST:PORT, and exit
                              (not with --port 0)
  -h, --help                  print this help

Control API (no key): POST /_sim/tick?n=1, GET /_sim/state, GET /_sim/stats, POST /_sim/stats/reset,
POST /_sim/scenario {"name":"liquidation"|"wipeout"|"halt"|"drift"|"normal"}, GET|PUT|DELETE /_sim/faults.
`;

export class CliError extends Error {
  override name = "CliError";
}

export type CliCommand = { kind: "help" } | { kind: "run"; options: SimulatorOptions } | { kind: "print-config"; options: SimulatorOptions };

function integer(flag: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw new CliError(`${flag} must be an integer, got "${value}"`);
  return Number(value);
}

function choice<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new CliError(`${flag} must be one of ${allowed.join(", ")}, got "${value}"`);
  return value as T;
}

function collateral(value: string): CollateralSpec {
  const [id, shape, ...rest] = value.split(":");
  if (id === undefined || id === "" || shape === undefined || rest.length > 0) throw new CliError(`--collateral must be ID:SHAPE, got "${value}"`);
  return { id, shape: choice("--collateral SHAPE", shape, ["detailed", "summary"]) };
}

/** Parse argv (without node and script); throws CliError with one line naming the flag. */
export function parseCliArgs(argv: readonly string[]): CliCommand {
  const options: SimulatorOptions = { port: 8080 };
  const faults: FaultSpec[] = [];
  const collaterals: CollateralSpec[] = [];
  let printConfig = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") return { kind: "help" };
    if (arg === "--moving") {
      options.moving = true;
      continue;
    }
    if (arg === "--print-exporter-config") {
      printConfig = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!flag.startsWith("--")) throw new CliError(`unexpected argument "${arg}"`);
    const inline = flag === arg ? undefined : arg.slice(eq + 1);
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw new CliError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--host":
        options.host = value();
        break;
      case "--port":
        options.port = integer(flag, value());
        break;
      case "--seed":
        options.seed = integer(flag, value());
        break;
      case "--tick-ms":
        options.tickMs = integer(flag, value());
        break;
      case "--profile":
        options.profile = choice<ProfileName>(flag, value(), ["small", "large", "huge"]);
        break;
      case "--markets":
        options.markets = integer(flag, value());
        break;
      case "--positions":
        options.positions = integer(flag, value());
        break;
      case "--active-orders":
        options.activeOrders = integer(flag, value());
        break;
      case "--history-orders":
        options.historyOrders = integer(flag, value());
        break;
      case "--collateral":
        collaterals.push(collateral(value()));
        break;
      case "--accounts":
        options.accounts = integer(flag, value());
        break;
      case "--latency-ms":
        options.latencyMs = integer(flag, value());
        break;
      case "--api-key":
        options.apiKey = value();
        break;
      case "--api-key-header":
        options.apiKeyHeader = value();
        break;
      case "--time-unit":
        options.timeUnit = choice<TimeUnit>(flag, value(), ["s", "ms", "us", "ns"]);
        break;
      case "--epoch-ms": {
        const v = value();
        options.epochMs = v === "now" ? Date.now() : integer(flag, v);
        break;
      }
      case "--fault": {
        try {
          faults.push(parseFaultFlag(value()));
        } catch (err) {
          throw err instanceof FaultSpecError ? new CliError(err.message) : err;
        }
        break;
      }
      default:
        throw new CliError(`unknown option ${flag}`);
    }
  }
  if (faults.length > 0) options.faults = faults;
  if (collaterals.length > 0) options.collaterals = collaterals;
  return { kind: printConfig ? "print-config" : "run", options };
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Parse, start, print the URL line; returns the running simulator, or the exit code when there is none. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<RunningSimulator | number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    io.err(`simulator: ${err.message} (see --help)`);
    return 1;
  }
  if (command.kind === "help") {
    io.out(USAGE.trimEnd());
    return 0;
  }
  if (command.kind === "print-config") {
    try {
      const config = resolveConfig(command.options);
      if (config.port === 0) {
        io.err("simulator: --print-exporter-config needs the port the simulator will listen on, not --port 0 (any free port, known only at start)");
        return 1;
      }
      const host = config.host.includes(":") ? `[${config.host}]` : config.host;
      io.out(exporterConfigYaml(config, `http://${host}:${config.port}`).trimEnd());
      return 0;
    } catch (err) {
      if (!(err instanceof SimulatorConfigError)) throw err;
      io.err(`simulator: ${err.message}`);
      return 1;
    }
  }
  try {
    const sim = await startSimulator(command.options);
    const o = command.options;
    const desk = (o.accounts ?? 1) > 1 ? `, ${o.accounts} accounts` : "";
    const latency = (o.latencyMs ?? 0) > 0 ? `, latency ${o.latencyMs} ms` : "";
    io.out(`venue simulator listening on ${sim.url} (seed ${o.seed ?? 1}, profile ${o.profile ?? "small"}, tick ${o.tickMs ?? 1000} ms${desk}${latency})`);
    return sim;
  } catch (err) {
    const message = err instanceof SimulatorConfigError ? err.message : err instanceof Error ? err.message : String(err);
    io.err(`simulator: ${message}`);
    return 1;
  }
}
