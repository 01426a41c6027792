// The /_sim/ control API: ticks, request stats, scenarios and faults, as plain JSON over HTTP without a key.
import type { IncomingMessage, ServerResponse } from "node:http";
import { FaultSpecError, validateFaultList, type FaultSet } from "./faults.js";
import { BodyTooLargeError, readBody, sendJson } from "./http-util.js";
import type { SimState } from "./state.js";
import type { RequestStats } from "./stats.js";
import { SCENARIO_NAMES, type ScenarioName } from "./types.js";

export interface ControlContext {
  /** The venue's state; the scenarios and the state summary act on its first account. */
  state: SimState;
  /** Advances every account's state. */
  tick(n: number): void;
  faults: FaultSet;
  stats: RequestStats;
}

export const MAX_TICKS_PER_CALL = 100_000;

export class ControlInputError extends Error {
  override name = "ControlInputError";
}

/** A summary of the state, for people and benchmark scripts (GET /_sim/state). */
export function stateInfo(state: SimState) {
  return {
    ticks: state.ticks,
    nowMs: state.nowMs,
    accountId: state.first.accountId,
    liquidating: state.liquidating,
    haltedMarket: state.halted?.market.id ?? null,
    markets: state.markets.length,
    positions: state.first.collaterals.reduce((n, a) => n + a.positions.length, 0),
    activeOrders: state.first.book.activeCount(state.ticks),
    historyOrders: state.first.book.historyCount(state.ticks),
  };
}

export function parseTickCount(raw: string | null): number {
  if (raw === null) return 1;
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_TICKS_PER_CALL)) throw new ControlInputError(`n must be an integer from 1 to ${MAX_TICKS_PER_CALL}`);
  return n;
}

export function parseScenario(body: unknown): ScenarioName {
  const name = typeof body === "object" && body !== null ? (body as Record<string, unknown>).name : undefined;
  if (!SCENARIO_NAMES.includes(name as ScenarioName)) throw new ControlInputError(`name must be one of ${SCENARIO_NAMES.join(", ")}`);
  return name as ScenarioName;
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ControlInputError("body is not valid JSON");
  }
}

type Route = (ctx: ControlContext, req: IncomingMessage, url: URL) => Promise<unknown>;

const ROUTES: Record<string, Partial<Record<string, Route>>> = {
  "/_sim/tick": {
    POST: async ({ state, tick }, _req, url) => {
      tick(parseTickCount(url.searchParams.get("n")));
      return stateInfo(state);
    },
  },
  "/_sim/state": { GET: async ({ state }) => stateInfo(state) },
  "/_sim/stats": { GET: async ({ stats }) => stats.snapshot() },
  "/_sim/stats/reset": {
    POST: async ({ stats }) => {
      stats.reset();
      return stats.snapshot();
    },
  },
  "/_sim/scenario": {
    POST: async ({ state }, req) => {
      const name = parseScenario(await jsonBody(req));
      state.setScenario(name);
      return { scenario: name, ...stateInfo(state) };
    },
  },
  "/_sim/faults": {
    GET: async ({ faults }) => faults.list(),
    PUT: async ({ faults }, req) => {
      faults.replace(validateFaultList(await jsonBody(req)));
      return faults.list();
    },
    DELETE: async ({ faults }) => {
      faults.clear();
      return faults.list();
    },
  },
};

export async function handleControl(ctx: ControlContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const methods = ROUTES[url.pathname];
  if (methods === undefined) return sendJson(res, 404, { error: "not found" });
  const route = methods[req.method ?? ""];
  if (route === undefined) return sendJson(res, 405, { error: "method not allowed" }, { Allow: Object.keys(methods).join(", ") });
  try {
    sendJson(res, 200, await route(ctx, req, url));
  } catch (err) {
    if (err instanceof ControlInputError || err instanceof FaultSpecError) return sendJson(res, 400, { error: err.message });
    if (err instanceof BodyTooLargeError) return sendJson(res, 413, { error: err.message });
    throw err;
  }
}
