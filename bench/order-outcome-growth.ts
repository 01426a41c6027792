// `npm run bench:outcomes`: the exporter, with the default settings but a minimum collection interval of
// 0, against a venue that sends new market, status and rejection-code strings for every order of every
// collection. Prints, per build, RSS at the start, after the first and the last of 100 collections and
// at most, the counter series of the last answer, and how many answers held the margin and market
// families. `BENCH_BASE=DIR` (a checkout or its dist folder) runs that build first, in the same run.
// A benchmark, not a test: the goals (RSS within 100 MB of the start, the families in every answer) are
// checked by reading it.

import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startExporterProcess } from "./exporter-process.js";
import { rssMB } from "./measure.js";
import { KEY, positiveInteger, round1, table } from "./shared.js";

const THIS = new URL("../../dist", import.meta.url).pathname;
const COLLECTIONS = positiveInteger("BENCH_COLLECTIONS", 100);
/** Orders per collection in the history (the default history_max_orders) and the active list. */
const HISTORY_ORDERS = 1000;
const ACTIVE_ORDERS = 100;
const MARKETS = ["BTC-USD", "ETH-USD", "SOL-USD"];

function market(id: string): Record<string, unknown> {
  return {
    id,
    name: id,
    assetId: id.split("-")[0],
    collateralAssetId: "USDC",
    status: "TRADABLE",
    settings: {
      tickSize: 0.1,
      tickPrecision: 1,
      stepSize: 0.001,
      stepPrecision: 3,
      minOrderSize: 0.001,
      minLeverage: 1,
      maxLeverage: 20,
      maintenanceMarginFraction: 0.03,
      initialMarginFraction: 0.05,
      incrementalInitialMarginFraction: 0.01,
      incrementalPositionSize: 10,
      baselinePositionSize: 50,
      maxPositionSize: 500,
      currentlyAllowedLeverage: 10,
    },
  };
}

const ACCOUNT = {
  collateralBalance: "10000",
  availableMargin: "8000",
  totalInvested: "2000",
  totalMargin: "10100",
  totalUnrealizedPnl: "100",
  positions: MARKETS.map((marketId) => ({
    marketId,
    direction: "LONG",
    size: "1",
    avgExecutionPrice: "100",
    marginAmount: "10",
    borrowedAmount: "90",
    leverage: "10",
    realizedPnl: "0",
    liquidationPrice: "91",
    maintenanceMargin: "3",
  })),
};

/** Order `i` of collection `c`: its id, market, status and rejection code all new. */
function order(c: number, i: number, list: string): Record<string, unknown> {
  const tag = `${list}${c}-${i}`;
  return {
    id: tag,
    accountId: "1",
    signature: ["0x1", "0x2"],
    marketId: `M-${tag}`,
    type: "LIMIT",
    side: "BUY",
    direction: "LONG",
    status: `S-${tag}`,
    isPendingExpiration: false,
    isPendingCancellation: false,
    isPendingRejection: false,
    price: 100,
    quantity: 1,
    quantityLocked: 0,
    quantityFilled: 0,
    createdAt: 1_700_000_000_000 + c * 1000,
    rejectionReason: { code: `C-${tag}`, message: "no" },
  };
}

interface Venue {
  url: string;
  close(): Promise<void>;
}

/** The venue: a new collection begins with each first history page. */
async function startVenue(): Promise<Venue> {
  let collection = 0;
  const send = (res: ServerResponse, value: unknown) => {
    const body = JSON.stringify(value);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://venue");
    const number = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback) || fallback;
    switch (url.pathname) {
      case "/v1/public/markets":
        return send(res, MARKETS.map(market));
      case "/v1/private/account-info":
        return send(res, ACCOUNT);
      case "/v1/private/orders/realtime":
        return send(
          res,
          Array.from({ length: ACTIVE_ORDERS }, (_, i) => order(collection, i, "a")),
        );
      case "/v1/private/orders/history": {
        const offset = Number(url.searchParams.get("offset") ?? 0) || 0;
        if (offset === 0) collection++;
        const end = Math.min(HISTORY_ORDERS, offset + number("limit", 100));
        return send(
          res,
          Array.from({ length: Math.max(0, end - offset) }, (_, i) => order(collection, offset + i, "h")),
        );
      }
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function get(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

const seriesOf = (text: string, name: string) => text.split(`\n${name}{`).length - 1;
const sampleValue = (text: string, line: string) => new RegExp(`^${line.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? "absent";

/** One build's run: 100 collections of /metrics, one after another. */
async function run(dist: string, venue: Venue): Promise<string[]> {
  const exporter = await startExporterProcess(
    { TRADING_BASE_URL: venue.url, TRADING_API_KEY: KEY, TRADING_COLLATERAL_IDS: "USDC", TRADING_MIN_COLLECTION_INTERVAL_SECONDS: "0" },
    [],
    join(dist, "main.js"),
  );
  try {
    const start = rssMB(exporter.pid);
    let peak = start;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMB(exporter.pid));
    }, 100);
    let first = 0;
    let margin = 0;
    let markets = 0;
    let text = "";
    const started = performance.now();
    for (let i = 0; i < COLLECTIONS; i++) {
      text = await get(new URL("metrics", exporter.url));
      if (i === 0) first = rssMB(exporter.pid);
      if (seriesOf(text, "trading_account_margin_ratio") > 0) margin++;
      if (seriesOf(text, "trading_market_info") > 0) markets++;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const after = rssMB(exporter.pid);
    peak = Math.max(peak, after);
    const folded = ["trading_orders_total", "trading_order_rejections_total"]
      .map((family) => sampleValue(text, `trading_exporter_order_outcomes_folded_total{family="${family}"}`))
      .join("/");
    return [
      dist,
      String(Math.round(start)),
      String(Math.round(first)),
      String(Math.round(after)),
      String(Math.round(peak)),
      String(Math.round(after - start)),
      String(seriesOf(text, "trading_orders_total")),
      String(seriesOf(text, "trading_order_rejections_total")),
      `${margin}/${COLLECTIONS}`,
      `${markets}/${COLLECTIONS}`,
      folded,
      sampleValue(text, "trading_exporter_series_dropped_total"),
      String(round1(seconds)),
    ];
  } finally {
    await exporter.close();
  }
}

/** BENCH_BASE as a dist folder: the folder itself, or a checkout's dist. */
function baseDist(): string | undefined {
  const base = process.env.BENCH_BASE;
  if (base === undefined || base === "") return undefined;
  return existsSync(join(base, "main.js")) ? base : join(base, "dist");
}

async function main(): Promise<void> {
  console.log(
    `${COLLECTIONS} collections, each of ${HISTORY_ORDERS} history and ${ACTIVE_ORDERS} active orders with a new market, status and rejection code, Node ${process.version}`,
  );
  const rows = [
    [
      "build",
      "rss start MB",
      "after first MB",
      "after last MB",
      "peak MB",
      "growth MB",
      "orders_total series",
      "rejections series",
      "answers with margin ratio",
      "answers with market families",
      "folded orders/rejections",
      "series dropped",
      "seconds",
    ],
  ];
  const base = baseDist();
  for (const dist of base === undefined ? [THIS] : [base, THIS]) {
    // A venue per build, so each starts from the venue's first collection.
    const venue = await startVenue();
    try {
      rows.push(await run(dist, venue));
    } finally {
      await venue.close();
    }
  }
  console.log(table(rows));
  console.log("Goals: growth within 100 MB, the margin ratio and the market families in every answer.");
}

await main();
