// Warnings every account repeats are one line a minute per kind, the held-back count in the next; the counter keeps every anomaly.

import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { exporterConfigYaml } from "../tools/simulator/exporter-config.js";
import { LineRateLimit } from "../src/endpoint-health.js";
import { parseExposition, valueOf } from "./helpers/exposition.js";
import { SIM_KEY, startStack, type Stack } from "./helpers/stack.js";

describe("LineRateLimit", () => {
  it("lets one line per kind through per window and counts the rest for the next", () => {
    let now = 0;
    const limit = new LineRateLimit(60_000, () => now);
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBeUndefined();
    expect(limit.take("b")).toBe(0);
    now = 59_999;
    expect(limit.take("a")).toBeUndefined();
    now = 60_000;
    expect(limit.take("a")).toBe(2);
    expect(limit.take("a")).toBeUndefined();
    now = 200_000;
    expect(limit.take("a")).toBe(1);
    expect(limit.take("b")).toBe(0);
  });
});

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("paging warnings of many accounts", () => {
  it("are one line, while the counter has every account's anomaly", async () => {
    const accounts = 20;
    const collaterals = [{ id: "USDC", shape: "detailed" as const }];
    stack = await startStack({
      venue: { accounts, collaterals, faults: [{ endpoint: "orders_history", kind: "history_overlaps" }] },
      file: (url) => parse(exporterConfigYaml({ accounts, apiKey: SIM_KEY, apiKeyHeader: "X-Api-Key", collaterals }, url)),
    });
    const samples = parseExposition(await stack.scrape());
    expect(valueOf(samples, "trading_exporter_history_paging_anomalies_total", { kind: "overlap" })).toBeGreaterThanOrEqual(accounts);
    expect(stack.logs.filter((l) => l.includes("history paging misbehaves"))).toHaveLength(1);
  });
});

describe("an endpoint failing for many accounts", () => {
  it("is one warning line naming the first account, while the counter has every account's failure", async () => {
    const accounts = 20;
    const collaterals = [{ id: "USDC", shape: "detailed" as const }];
    stack = await startStack({
      venue: { accounts, collaterals, faults: [{ endpoint: "orders_active", kind: "status", status: 503 }] },
      file: (url) => parse(exporterConfigYaml({ accounts, apiKey: SIM_KEY, apiKeyHeader: "X-Api-Key", collaterals }, url)),
    });
    const samples = parseExposition(await stack.scrape());
    const failures = samples.filter((s) => s.name === "trading_exporter_upstream_errors_total" && s.labels.endpoint === "orders_active");
    expect(failures.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(accounts);
    const lines = stack.logs.filter((l) => l.includes("venue endpoint failing"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"endpoint":"orders_active"');
  });
});
