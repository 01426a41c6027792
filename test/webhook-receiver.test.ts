// The shipped webhook receiver (the compose stack's pager): takes Alertmanager payloads, prints one line per alert, refuses anything else.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { describeAlert, startReceiver, type RunningReceiver } from "../tools/webhook/receiver.js";

const payload = {
  version: "4",
  receiver: "trading-critical",
  status: "firing",
  groupLabels: { account: "main", collateral_id: "USDC" },
  commonLabels: { alertname: "TradingMarginRatioCritical" },
  alerts: [
    {
      status: "firing",
      labels: {
        alertname: "TradingMarginRatioCritical",
        severity: "critical",
        account: "main",
        collateral_id: "USDC",
        instance: "exporter:9842",
        job: "trading",
      },
      annotations: { summary: "Account main (USDC) is close to liquidation.", runbook_url: "http://localhost:9842/runbooks/TradingMarginRatioCritical" },
      startsAt: "2026-11-22T22:00:00Z",
      endsAt: "0001-01-01T00:00:00Z",
    },
    {
      status: "resolved",
      labels: { alertname: "TradingPositionNearLiquidation", severity: "critical", account: "main" },
      annotations: {},
      startsAt: "2026-11-22T21:50:00Z",
      endsAt: "2026-11-22T22:00:00Z",
    },
  ],
};

describe("the webhook receiver", () => {
  let receiver: RunningReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("keeps each notification with its path and prints one line per alert", async () => {
    const lines: string[] = [];
    receiver = await startReceiver({ print: (line) => lines.push(line) });
    const res = await fetch(`${receiver.url}/critical`, { method: "POST", body: JSON.stringify(payload), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    const [n] = receiver.notifications();
    expect(n).toMatchObject({ path: "/critical", receiver: "trading-critical", status: "firing", groupLabels: { account: "main", collateral_id: "USDC" } });
    expect(n?.alerts).toHaveLength(2);
    expect(lines).toEqual([
      "FIRING TradingMarginRatioCritical severity=critical account=main collateral_id=USDC instance=exporter:9842 job=trading receiver=trading-critical: Account main (USDC) is close to liquidation. runbook=http://localhost:9842/runbooks/TradingMarginRatioCritical",
      "RESOLVED TradingPositionNearLiquidation severity=critical account=main receiver=trading-critical: resolved at 2026-11-22T22:00:00Z",
    ]);
    const listed = (await (await fetch(`${receiver.url}/`)).json()) as Array<{ path: string }>;
    expect(listed.map((l) => l.path)).toEqual(["/critical"]);
  });

  it("answers 400 to a body that is not JSON or not a payload, 405 to other methods, and keeps nothing of them", async () => {
    receiver = await startReceiver({ keep: 1 });
    expect((await fetch(receiver.url, { method: "POST", body: "{nope" })).status).toBe(400);
    expect((await fetch(receiver.url, { method: "POST", body: JSON.stringify({ alerts: "x" }) })).status).toBe(400);
    expect((await fetch(receiver.url, { method: "PUT", body: "{}" })).status).toBe(405);
    expect(receiver.notifications()).toEqual([]);
    // keep: 1 holds only the latest.
    for (const status of ["firing", "resolved"]) {
      await fetch(receiver.url, { method: "POST", body: JSON.stringify({ ...payload, status }) });
    }
    expect(receiver.notifications().map((n) => n.status)).toEqual(["resolved"]);
  });

  it("describes an alert without labels it does not have", () => {
    expect(describeAlert("r", { status: "firing", labels: {}, annotations: {}, startsAt: "", endsAt: "" })).toBe("FIRING ? receiver=r:");
  });

  it("keeps each alert on one line whatever its strings hold: a venue's market id cannot forge another alert", () => {
    // A market id is the venue's string: it reaches the alert's labels and its summary as sent.
    const forged = "BTC-USD\nFIRING TradingExporterDown severity=critical\r\u2028x";
    const line = describeAlert("r", {
      status: "firing",
      labels: { alertname: "TradingMarketNotTradableWithPositions", account: "main\u0007" },
      annotations: { summary: `Market ${forged} is CLOSE_ONLY.` },
      startsAt: "",
      endsAt: "",
    });
    expect(line.split(/[\n\r\u2028\u2029]/)).toEqual([line]);
    expect(line).toBe(
      "FIRING TradingMarketNotTradableWithPositions account=main\\u0007 receiver=r: Market BTC-USD\\u000aFIRING TradingExporterDown severity=critical\\u000d\\u2028x is CLOSE_ONLY.",
    );
    const resolved = describeAlert("r", { status: "resolved", labels: { alertname: "A", account: "x\ny" }, annotations: {}, startsAt: "", endsAt: "t" });
    expect(resolved).toBe("RESOLVED A account=x\\u000ay receiver=r: resolved at t");
  });
});

describe("dist-tools/tools/webhook/main.js (the compose stack's webhook service)", () => {
  const MAIN = new URL("../dist-tools/tools/webhook/main.js", import.meta.url).pathname;

  it("listens where told, prints each alert on stdout, and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, [MAIN, "--host", "127.0.0.1", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    const lines: string[] = [];
    const exited = once(child, "exit");
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`exited early: ${lines.join("\n")}`)));
    });
    expect((await fetch(`${url}/warning`, { method: "POST", body: JSON.stringify(payload) })).status).toBe(200);
    await expect.poll(() => lines.filter((l) => l.startsWith("FIRING ") || l.startsWith("RESOLVED ")).length).toBe(2);
    child.kill("SIGTERM");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });

  it("says in one line of its own words, exit code 1, when its port is taken", async () => {
    const holder = await startReceiver();
    onTestFinished(() => holder.close());
    const { port } = new URL(holder.url);
    const child = spawn(process.execPath, [MAIN, "--port", port], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toBe(`webhook receiver: cannot listen on 127.0.0.1:${port}: the address is already in use\n`);
  });

  it("refuses a bad port with one line and exit code 2", async () => {
    const child = spawn(process.execPath, [MAIN, "--port", "http"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toBe('--port: not a port number: "http"\n');
  });
});
