// Debian's nginx in front of the exporter at /trading/, with the location docs/reverse-proxy.md shows: every link and
// stylesheet of the status page and the runbook index answers 200 through it, /trading/metrics and /trading/probe
// scrape, and straight at the exporter /metrics is 404. nginx cannot listen on port 0: the test picks a free port
// and tries another when nginx finds it taken (the one exception to port 0); nginx runs from its own folder.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/log.js";
import { SelfMetrics } from "../src/metrics/self.js";
import { type Service, startService } from "../src/lifecycle.js";
import { startSimulator, type RunningSimulator } from "../tools/simulator/server.js";
import { configFromObject } from "./helpers/config-files.js";
import { readDoc } from "./helpers/markdown-docs.js";
import { findBinary, freePort } from "./helpers/server-process.js";

const DOC = "docs/reverse-proxy.md";
const ATTEMPTS = 5;

/** The nginx location the doc shows, marked `<!-- nginx: ... -->`. */
function documentedLocation(): string {
  const doc = readDoc(DOC);
  const block = /<!-- nginx: [^>]*-->\n```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error(`${DOC} shows no nginx block marked <!-- nginx: -->`);
  return block;
}

interface Running {
  nginx: ChildProcess;
  port: number;
  log: () => string;
}

let dir = "";
let venue: RunningSimulator | undefined;
let service: Service | undefined;
let proxy: Running | undefined;

/** nginx on `port`, in front of `upstream`, from its own prefix folder; resolves once it answers, or with why it stopped. */
async function startNginx(port: number, upstream: string): Promise<Running | "address in use"> {
  const location = documentedLocation().replaceAll("127.0.0.1:9842", upstream);
  expect(location).toContain(`proxy_pass http://${upstream};`);
  for (const sub of ["logs", "temp"]) mkdirSync(join(dir, sub), { recursive: true });
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${join(dir, "temp", t)};`).join("\n  ");
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
master_process off;
pid ${join(dir, "nginx.pid")};
error_log stderr;
events { worker_connections 64; }
http {
  access_log off;
  ${temp}
  server {
    listen 127.0.0.1:${port};
    ${location.replaceAll("\n", "\n    ")}
  }
}
`,
  );
  const nginx = spawn(findBinary(["nginx"], "apt-get install nginx (.ci/run does)"), ["-p", dir, "-e", "stderr", "-c", join(dir, "nginx.conf")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  nginx.stdout.on("data", (d: Buffer) => (log += d.toString()));
  nginx.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exited = once(nginx, "exit").then(() => "exited" as const);
  const ready = (async () => {
    while (nginx.exitCode === null && nginx.signalCode === null) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/trading/-/ready`);
        await res.arrayBuffer();
        if (res.status === 200) return "ready" as const;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return "exited" as const;
  })();
  const outcome = await Promise.race([ready, exited]);
  if (outcome === "ready") return { nginx, port, log: () => log };
  if (/address already in use/i.test(log)) return "address in use";
  throw new Error(`nginx stopped before it served:\n${log}`);
}

async function stopNginx(running: Running): Promise<void> {
  if (running.nginx.exitCode !== null || running.nginx.signalCode !== null) return;
  const exited = once(running.nginx, "exit");
  running.nginx.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nginx-"));
  venue = await startSimulator({ seed: 3, tickMs: 0, apiKey: "proxy-key" });
  for (let attempt = 1; attempt <= ATTEMPTS && proxy === undefined; attempt++) {
    const port = await freePort();
    const config = configFromObject(
      {
        venue: { base_url: venue.url },
        web: { listen_address: "127.0.0.1:0", external_url: `http://127.0.0.1:${port}/trading/` },
        accounts: [{ name: "desk", collateral_ids: ["USDC"], auth: { type: "api_key", key: "proxy-key" } }],
      },
      {},
      "/",
    );
    service = await startService(config, createLogger("silent"), { self: new SelfMetrics({ defaultMetrics: false }) });
    const started = await startNginx(port, new URL(service.server.url).host);
    if (started !== "address in use") proxy = started;
    else await service.close(1_000);
  }
  if (proxy === undefined) throw new Error(`nginx found every one of ${ATTEMPTS} free ports taken`);
}, 60_000);

afterAll(async () => {
  if (proxy !== undefined) await stopNginx(proxy);
  await service?.close(1_000);
  await venue?.close();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

/** Every href of a page, resolved against the page's URL. */
function links(html: string, page: string): URL[] {
  return [...html.matchAll(/href="([^"]+)"/g)].map((m) => new URL(m[1]!.replaceAll("&amp;", "&"), page));
}

describe("the exporter behind nginx at /trading/", () => {
  it("answers every link and stylesheet of the status page and the runbook index through the proxy, all under /trading/", async () => {
    const base = `http://127.0.0.1:${proxy!.port}/trading/`;
    // A scrape first, so the page has accounts and their probe links.
    expect((await fetch(`${base}metrics`).then(async (r) => [r.status, await r.text()]))[0]).toBe(200);
    const followed: string[] = [];
    for (const page of [base, `${base}runbooks/`]) {
      const res = await fetch(page);
      expect(res.status, page).toBe(200);
      const found = links(await res.text(), page);
      expect(found.length, page).toBeGreaterThan(5);
      for (const link of found) {
        expect(link.origin, link.href).toBe(new URL(base).origin);
        expect(link.pathname.startsWith("/trading/"), link.href).toBe(true);
        const answer = await fetch(link);
        await answer.arrayBuffer();
        expect(answer.status, `${link.href} (from ${page})\n${proxy!.log()}`).toBe(200);
        followed.push(link.pathname);
      }
    }
    expect(followed).toEqual(
      expect.arrayContaining([
        "/trading/status.css",
        "/trading/metrics",
        "/trading/probe",
        "/trading/sd",
        "/trading/runbooks/",
        "/trading/runbooks/runbook.css",
      ]),
    );
  });

  it("scrapes /trading/metrics and /trading/probe through it, and /sd names the proxy's URL", async () => {
    const base = `http://127.0.0.1:${proxy!.port}/trading/`;
    const metrics = await fetch(`${base}metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^trading_up\{account="desk"\} 1$/m);
    const probe = await fetch(`${base}probe?target=desk`);
    expect(probe.status).toBe(200);
    expect(await probe.text()).toMatch(/^trading_up\{account="desk"\} 1$/m);
    const groups = (await (await fetch(`${base}sd`)).json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
    expect(groups[0]).toMatchObject({ targets: [`127.0.0.1:${proxy!.port}`], labels: { __scheme__: "http", __metrics_path__: "/trading/probe" } });
  });

  it("straight at the exporter, answers under /trading/ only: /metrics is 404", async () => {
    const direct = new URL(service!.server.url);
    expect((await fetch(new URL("/metrics", direct))).status).toBe(404);
    expect((await fetch(new URL("/", direct))).status).toBe(404);
    const under = await fetch(new URL("/trading/metrics", direct));
    await under.arrayBuffer();
    expect(under.status).toBe(200);
  });
});
