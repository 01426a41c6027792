// A venue of the tests' own on node:http (127.0.0.1, port 0): fixed bodies, chosen paging misbehaviour,
// raw bytes on demand, and a count of every request, so a test can hold the exporter to its bounds.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Paging {
  /** Answer from offset 0 whatever offset was asked. */
  ignoreOffset?: boolean;
  /** Answer every order from the offset on, whatever limit was asked. */
  ignoreLimit?: boolean;
  /** Start each page this many orders before the offset asked (pages overlap). */
  overlap?: number;
  /** Answer this many orders more than the limit asked. */
  extra?: number;
}

/** A raw answer: status, headers and bytes exactly as given. */
export interface RawAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: Buffer | string;
  /** Leave the answer open after the body: its end never comes, so the body is read mid-stream. */
  open?: boolean;
}

export interface TinyVenueOptions {
  history?: unknown[];
  paging?: Paging;
  active?: unknown[];
  markets?: unknown[];
  account?: unknown;
  /** An account-info body per collateralId asked for, over `account`: accounts of several shapes on one venue. */
  accountByCollateral?: Record<string, unknown>;
  /** Answer 503 to this many history requests first. */
  failHistory?: number;
  /** Bodies sent as given (raw text, possibly not JSON), by path without query. */
  raw?: Record<string, RawAnswer>;
  /** While set, every answer waits for it (the request is counted at once): a venue as slow as the test wants. */
  hold?: Promise<void>;
}

export interface TinyVenue {
  url: string;
  options: TinyVenueOptions;
  /** Requests received per path (query left off), and each history request's query. */
  requests: Map<string, number>;
  historyQueries: Array<{ offset: number; limit: number }>;
  /** Each request's path (query left off) and performance.now() ms of its arrival, in order. */
  arrivals: Array<{ path: string; at: number }>;
  reset(): void;
  close(): Promise<void>;
}

export const HISTORY = "/v1/private/orders/history";
export const ACTIVE = "/v1/private/orders/realtime";
export const MARKETS = "/v1/public/markets";
export const ACCOUNT = "/v1/private/account-info";

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

/** The history page a venue with this paging behaviour answers. */
export function historyPage(all: unknown[], paging: Paging, offset: number, limit: number): unknown[] {
  let from = paging.ignoreOffset === true ? 0 : Math.max(0, offset - (paging.overlap ?? 0));
  const count = paging.ignoreLimit === true ? all.length : limit + (paging.extra ?? 0);
  if (from > all.length) from = all.length;
  return all.slice(from, from + count);
}

export async function startTinyVenue(options: TinyVenueOptions): Promise<TinyVenue> {
  const requests = new Map<string, number>();
  const historyQueries: Array<{ offset: number; limit: number }> = [];
  const arrivals: Array<{ path: string; at: number }> = [];
  const send = (res: ServerResponse, value: unknown): void => {
    const body = JSON.stringify(value);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://venue.test");
    requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
    arrivals.push({ path: url.pathname, at: performance.now() });
    const hold = venue.options.hold;
    if (hold !== undefined) void hold.then(() => answer(url, res));
    else answer(url, res);
  };
  const answer = (url: URL, res: ServerResponse): void => {
    const raw = venue.options.raw?.[url.pathname];
    if (raw !== undefined) {
      res.writeHead(raw.status ?? 200, raw.headers ?? {});
      if (raw.open === true) res.write(raw.body);
      else res.end(raw.body);
      return;
    }
    switch (url.pathname) {
      case HISTORY: {
        const offset = intParam(url, "offset", 0);
        const limit = intParam(url, "limit", 25);
        historyQueries.push({ offset, limit });
        if ((venue.options.failHistory ?? 0) > 0) {
          venue.options.failHistory = (venue.options.failHistory ?? 0) - 1;
          res.writeHead(503).end();
          return;
        }
        return send(res, historyPage(venue.options.history ?? [], venue.options.paging ?? {}, offset, limit));
      }
      case ACTIVE:
        return send(res, venue.options.active ?? []);
      case MARKETS:
        return send(res, venue.options.markets ?? []);
      case ACCOUNT:
        return send(
          res,
          venue.options.accountByCollateral?.[url.searchParams.get("collateralId") ?? ""] ??
            venue.options.account ?? {
              collateralBalance: "1",
              availableMargin: "1",
              totalInvested: "0",
              totalMargin: "1",
              totalUnrealizedPnl: "0",
              positions: [],
            },
        );
      default:
        res.writeHead(404).end();
    }
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const venue: TinyVenue = {
    url: `http://127.0.0.1:${port}`,
    options,
    requests,
    historyQueries,
    arrivals,
    reset() {
      requests.clear();
      historyQueries.length = 0;
      arrivals.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return venue;
}

/** A complete position in `marketId` as the reference describes it; `over` replaces or adds fields. */
export function position(marketId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    marketId,
    direction: "LONG",
    size: "1",
    avgExecutionPrice: "1",
    marginAmount: "1",
    borrowedAmount: "0",
    leverage: "1",
    realizedPnl: "0",
    liquidationPrice: "0.5",
    maintenanceMargin: "0.1",
    ...over,
  };
}

/** A complete order as the reference describes it; `over` replaces or adds fields. */
export function order(id: number | string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: String(id),
    accountId: "1",
    signature: ["0x1", "0x2"],
    marketId: "BTC-USD",
    type: "LIMIT",
    side: "BUY",
    direction: "LONG",
    status: "FILLED",
    isPendingExpiration: false,
    isPendingCancellation: false,
    isPendingRejection: false,
    price: 100,
    quantity: 1,
    quantityLocked: 0,
    quantityFilled: 1,
    leverage: 1,
    slippage: 0,
    postOnly: false,
    timeInForce: "GTC",
    clientTimestamp: 1_700_000_000_000,
    createdAt: 1_700_000_000_000 + Number.parseInt(String(id), 10) * 1000,
    updatedAt: 1_700_000_000_000,
    expiresAt: 1_800_000_000_000,
    ...over,
  };
}
