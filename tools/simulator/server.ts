// Starts the simulated venue on node:http and returns a handle to drive it (ticks, faults, scenarios, stats).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolveConfig, type SimulatorOptions } from "./config.js";
import { MAX_TICKS_PER_CALL, handleControl, stateInfo } from "./control.js";
import { respondWithFault } from "./fault-response.js";
import { FaultSet, validateFaultList } from "./faults.js";
import { Timers, errorBody, sendBuffer, sendJson, requestUrl } from "./http-util.js";
import { RequestStats } from "./stats.js";
import type { FaultSpec, ScenarioName, SimStats } from "./types.js";
import { VENUE_ROUTES } from "./venue.js";
import { Desk } from "./desk.js";
import { historyTarget, quirkyAnswer } from "./venue-quirks.js";
import { Rng } from "./prng.js";

export type { SimulatorOptions } from "./config.js";
export { SimulatorConfigError, PROFILES } from "./config.js";
export type {
  CollateralSpec,
  FaultKind,
  FaultSpec,
  ProfileName,
  ScenarioName,
  SimEndpoint,
  SimStats,
  TimeUnit,
  DetailedAccount,
  SummaryAccount,
  Position,
  Order,
  Market,
  MarketSettings,
} from "./types.js";
export { FAULT_KINDS, SIM_ENDPOINTS } from "./types.js";
export { FaultSpecError } from "./faults.js";

export type SimInfo = ReturnType<typeof stateInfo>;

export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  port: number;
  /** Stops the timer, cancels pending fault timers and closes every socket, hung ones included. */
  close(): Promise<void>;
  /** Advance the state by n ticks (default 1), as POST /_sim/tick?n= does. */
  tick(n?: number): void;
  /** Replace the active faults (validated; throws FaultSpecError). */
  setFaults(faults: FaultSpec[]): void;
  clearFaults(): void;
  faults(): FaultSpec[];
  stats(): SimStats;
  resetStats(): void;
  setScenario(name: ScenarioName): void;
  info(): SimInfo;
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const config = resolveConfig(opts);
  const desk = new Desk(config);
  const state = desk.state;
  const faults = new FaultSet(config.faults);
  const stats = new RequestStats();
  const timers = new Timers();
  // Its own stream, so a latency changes no account's state; ±10% so requests do not all land in step.
  const jitter = Rng.stream(config.seed, "latency");
  const held = (): Promise<void> => new Promise((resolve) => timers.after(config.latencyMs * jitter.range(0.9, 1.1), resolve));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = requestUrl(req);
    if (url === undefined) return sendJson(res, 400, { error: "bad request target" });
    if (url.pathname.startsWith("/_sim/")) return handleControl({ state, tick: (n) => desk.tick(n), faults, stats }, req, res, url);
    const endpoint = VENUE_ROUTES.get(url.pathname);
    if (endpoint === undefined) return sendJson(res, 404, { error: "not found" });
    stats.count(endpoint);
    if (config.latencyMs > 0) await held();
    if (req.method !== "GET") return sendJson(res, 405, { error: "method not allowed" }, { Allow: "GET" });
    const quirks = faults.quirks(endpoint);
    const responder = desk.responderFor(req);
    const answer = () => quirkyAnswer(responder.answer(endpoint, req, historyTarget(url, quirks)), quirks);
    const fault = faults.take(endpoint);
    if (fault !== undefined) return respondWithFault(fault, answer, req, res, timers);
    const a = answer();
    sendBuffer(res, a.status, a.body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendBuffer(res, 500, errorBody(`simulator: ${String(err)}`));
      else res.destroy();
    });
  });
  const address = await listen(server, config.port, config.host);
  const ticker = config.tickMs > 0 ? setInterval(() => desk.tick(1), config.tickMs) : undefined;
  ticker?.unref();

  let closing: Promise<void> | undefined;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(ticker);
        timers.clearAll();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
    tick(n = 1) {
      if (!Number.isInteger(n) || n < 1 || n > MAX_TICKS_PER_CALL) throw new RangeError(`tick(n): n must be an integer from 1 to ${MAX_TICKS_PER_CALL}`);
      desk.tick(n);
    },
    setFaults: (list) => faults.replace(validateFaultList(list)),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    setScenario: (name) => state.setScenario(name),
    info: () => stateInfo(state),
  };
}
