// Builds a ScrapeResult from fixture files through the real parsers, as the client would.

import { DEFAULT_THRESHOLDS } from "../../src/config/threshold-table.js";
import { readFileSync } from "node:fs";
import { AccountOrders, observeOrders } from "../../src/scrape/order-tally.js";
import { summarizeActive, summarizeHistory } from "../../src/scrape/order-summary.js";
import type { AccountResult, EndpointOutcome, ScrapeResult } from "../../src/scrape/result.js";
import { COLLECTORS } from "../../src/collectors/index.js";
import type { Family } from "../../src/metrics/family.js";
import type { Endpoint } from "../../src/venue/endpoints.js";
import type { FailureReason } from "../../src/venue/errors.js";
import { isRecord } from "../../src/venue/fields.js";
import { readAccountInfo } from "../../src/venue/read-account.js";
import { readMarkets } from "../../src/venue/read-markets.js";
import { readOrders } from "../../src/venue/read-orders.js";
import type { ListWalk } from "../../src/venue/walk.js";
import { fields } from "./redactor.js";

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8")) as unknown;
}

/** A ListWalk over an already parsed body: every item of the list handed out, none over a cap. */
export function objectWalk(body: unknown): ListWalk {
  return async (list, _invalid, each) => {
    const value = list === undefined ? body : isRecord(body) ? body[list] : undefined;
    const items: unknown[] = Array.isArray(value) ? value : [];
    for (const item of items) each(item);
    return { root: body, items: items.length, overCap: 0 };
  };
}

/** A fixture file name, or a failure reason standing for an endpoint that failed. */
type Source = string | { fail: FailureReason };

export interface FixtureCase {
  account: string;
  accountInfos: Array<[collateralId: string, source: Source]>;
  active: Source;
  activeLimit?: number;
  history: Source;
  markets: Source;
}

/** When every fixture collection "started": 2023-11-14T22:13:20Z. */
export const FIXTURE_STARTED_AT_MS = 1_700_000_000_000;

export type InvalidCounts = Record<string, number>;

function outcome(endpoint: Endpoint, account: string | undefined, failure?: FailureReason): EndpointOutcome {
  return {
    endpoint,
    account,
    ok: failure === undefined,
    durationSeconds: 0.25,
    reason: failure,
    message: failure === undefined ? undefined : `${endpoint} failed`,
  };
}

/** The ScrapeResult and the invalid fields counted per "endpoint field". */
export async function scrapeFromFixtures(c: FixtureCase): Promise<{ scrape: ScrapeResult; invalid: InvalidCounts }> {
  const invalid: InvalidCounts = {};
  const reporter = (endpoint: string) => (field: string) => {
    const key = `${endpoint} ${field}`;
    invalid[key] = (invalid[key] ?? 0) + 1;
  };
  const read = async <T>(endpoint: Endpoint, source: Source, parse: (walk: ListWalk) => Promise<T>): Promise<[EndpointOutcome, T | undefined]> =>
    typeof source === "string"
      ? [outcome(endpoint, endpoint === "markets" ? undefined : c.account), await parse(objectWalk(fixture(source)))]
      : [outcome(endpoint, endpoint === "markets" ? undefined : c.account, source.fail), undefined];

  const infos = await Promise.all(
    c.accountInfos.map(([id, source]) => read("account_info", source, (w) => readAccountInfo(w, fields, id, reporter("account_info")))),
  );
  const [activeOutcome, active] = await read("orders_active", c.active, (w) => readOrders(w, fields, "orders_active", reporter("orders_active")));
  const [historyOutcome, history] = await read("orders_history", c.history, (w) => readOrders(w, fields, "orders_history", reporter("orders_history")));
  const [marketsOutcome, markets] = await read("markets", c.markets, (w) => readMarkets(w, fields, reporter("markets")));
  const infoFailure = infos.find(([o]) => !o.ok)?.[0].reason;
  const activeOrders = active === undefined ? undefined : { orders: active, limit: c.activeLimit ?? 1000 };
  const orderHistory = history === undefined ? undefined : { orders: history, truncated: false, askNext: 1, anomalies: {} };
  const account: AccountResult = {
    account: c.account,
    // A fixed instant, so the golden files do not change with the clock.
    startedAt: FIXTURE_STARTED_AT_MS,
    outcomes: [outcome("account_info", c.account, infoFailure), activeOutcome, historyOutcome],
    accountInfos: infos.flatMap(([, info]) => (info === undefined ? [] : [info])),
    activeOrders: activeOrders && summarizeActive(activeOrders),
    history: orderHistory && summarizeHistory(orderHistory),
    // An exporter's first collection of the account: the order counters at their baseline.
    orderCounts: observeOrders(new AccountOrders(), activeOrders, orderHistory, { historyMaxOrders: 1000, maxSeries: 1000, onFolded: () => {} }),
  };
  return {
    scrape: {
      collectedAt: 0,
      accounts: [account],
      markets: { outcome: marketsOutcome, markets, readAt: 0, maxAgeSeconds: 60 },
      marketFamilies: true,
      thresholds: new Map([[c.account, DEFAULT_THRESHOLDS]]),
    },
    invalid,
  };
}

/** Every family of one scrape, empty ones left out. */
export function collectFamilies(scrape: ScrapeResult): Family[] {
  return COLLECTORS.flatMap((c) => c.collect(scrape)).filter((f) => f.samples.length > 0);
}
