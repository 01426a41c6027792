// The benchmark's naive peer, an exporter as many are written: express, the Prometheus client's default
// registry, one Gauge per family reset and set on every scrape, every request made every scrape
// (the market list too), no gzip. Run as its own process; prints its URL.
// Env: PEER_VENUE, PEER_KEY, PEER_COLLATERALS (comma-separated), PEER_ACTIVE_LIMIT, PEER_HISTORY_LIMIT.

import express from "express";
import type { AddressInfo } from "node:net";
import { Gauge, collectDefaultMetrics, register } from "@prometheus-io/client";
import { FAMILIES, venueSeries } from "./venue-series.js";

type Raw = Record<string, unknown>;

const venue = process.env.PEER_VENUE ?? "http://127.0.0.1:8080/";
const headers = { "x-api-key": process.env.PEER_KEY ?? "" };
const collaterals = (process.env.PEER_COLLATERALS ?? "USDC").split(",");
const activeLimit = Number(process.env.PEER_ACTIVE_LIMIT ?? "1000");
const historyLimit = Number(process.env.PEER_HISTORY_LIMIT ?? "1000");

collectDefaultMetrics();
const gauges = FAMILIES.map((f) => new Gauge({ name: f.name, help: f.help, labelNames: f.labelNames }));

async function get(path: string): Promise<unknown> {
  const res = await fetch(new URL(path, venue), { headers });
  return res.json();
}

const app = express();
app.get("/metrics", async (_req, res) => {
  const durations: number[] = [];
  const started = performance.now();
  const [active, history, markets, ...accounts] = await Promise.all([
    get(`v1/private/orders/realtime?limit=${activeLimit}`),
    get(`v1/private/orders/history?offset=0&limit=${historyLimit}`),
    get("v1/public/markets"),
    ...collaterals.map((c) => get(`v1/private/account-info?collateralId=${c}`)),
  ]);
  durations.push((performance.now() - started) / 1000);
  for (const gauge of gauges) gauge.reset();
  venueSeries(
    {
      account: "bench",
      marketFamilies: true,
      accounts: accounts.map((body, i) => [collaterals[i]!, body as Raw]),
      active: active as Raw[],
      activeLimit,
      history: history as Raw[],
      historyLimit: historyLimit,
      markets: markets as Raw[],
      durations,
    },
    (family, labels, value) => {
      if (Number.isNaN(value)) return;
      const names = FAMILIES[family]!.labelNames;
      gauges[family]!.set(Object.fromEntries(names.map((n, i) => [n, labels[i]!])), value);
    },
  );
  res.set("content-type", register.contentType);
  res.end(await register.metrics());
});

const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`naive peer listening on http://127.0.0.1:${port}/\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
