// The alerting walkthrough of docs/alerting.md ("On this machine, with Debian's binaries") runs as shown: the
// simulator, the exporter, the webhook receiver, Debian's prometheus-alertmanager and prometheus, each block in a
// shell of its own, then the scenario change; the page must reach the local webhook as the page says it prints.
// Only the fixed ports change, to free ones (PORTS below), in the blocks and in the copied prometheus.example.yml.

import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outputBlocks, REPO_ROOT, readDoc, walkthroughBlocks } from "./helpers/markdown-docs.js";
import { exited, type ShellBlock, startBlock, stopBlock } from "./helpers/shell-block.js";

const DOC = "docs/alerting.md";
/** The fixed ports the walkthrough uses: simulator, exporter, webhook, Alertmanager, Prometheus. */
const DOC_PORTS = [8080, 9842, 5001, 9093, 9090] as const;
/** Scrape and evaluation every 15 s, `for: 1m`, the critical route's 10 s group_wait, on a busy machine. */
const DELIVERY_TIMEOUT_MS = 240_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The doc's text with each fixed port, where it is an address or a --port value, replaced by its free one. */
function withPorts(text: string, ports: Map<number, number>): string {
  return text.replace(/(127\.0\.0\.1:|localhost:|--port )(\d{4})\b/g, (all, before: string, port: string) => {
    const free = ports.get(Number(port));
    return free === undefined ? all : `${before}${free}`;
  });
}

type Shell = ShellBlock;

const running: Shell[] = [];
let work = "";

/** A block in a shell of its own, in its own process group, from the work copy. */
function shell(script: string): Shell {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TRADING_|npm_|VITEST)/.test(k)));
  env.PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;
  // mktemp -d in the blocks makes its folders inside the work copy, removed with it.
  env.TMPDIR = work;
  return startBlock(script, work, env);
}

async function stop({ child }: Shell): Promise<void> {
  await stopBlock(child);
}

/** Runs a block to its end: its exit code and what it printed. */
async function run(script: string): Promise<{ code: number | null; output: string }> {
  const s = shell(script);
  const code = await exited(s.child);
  return { code, output: s.output() };
}

afterAll(async () => {
  await Promise.all(running.map(stop));
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

describe(`${DOC}: paging on margin, on this machine`, () => {
  const doc = readDoc(DOC);
  const blocks = walkthroughBlocks(DOC, doc);

  it("shows the servers with Debian's binary names and the local webhook", () => {
    const scripts = blocks.map((b) => b.script).join("\n");
    expect(blocks.filter((b) => b.kind === "serves")).toHaveLength(5);
    expect(scripts).toMatch(/^prometheus-alertmanager /m);
    expect(scripts).not.toMatch(/^alertmanager /m);
    expect(scripts).toContain("node dist-tools/tools/webhook/main.js");
    expect(scripts).toContain("http://127.0.0.1:5001/");
  });

  it(
    "runs as shown, and the page reaches the local webhook as the page says it prints",
    async () => {
      const ports = new Map<number, number>();
      for (const port of DOC_PORTS) ports.set(port, await freePort());
      work = mkdtempSync(join(tmpdir(), "alerting-walkthrough-"));
      // The clone's built dist/ and the shipped prometheus/ folder, which the blocks read by relative paths.
      symlinkSync(join(REPO_ROOT, "dist"), join(work, "dist"));
      symlinkSync(join(REPO_ROOT, "dist-tools"), join(work, "dist-tools"));
      cpSync(join(REPO_ROOT, "prometheus"), join(work, "prometheus"), { recursive: true });
      const promConfig = join(work, "prometheus/prometheus.example.yml");
      const shipped = readFileSync(promConfig, "utf8");
      expect(shipped).toContain("localhost:9842");
      expect(shipped).toContain("localhost:9093");
      writeFileSync(promConfig, withPorts(shipped, ports));

      let webhook: Shell | undefined;
      let delivered = "";
      for (const block of blocks) {
        const script = withPorts(block.script, ports);
        if (block.kind === "serves") {
          const server = shell(script);
          running.push(server);
          if (script.includes("dist-tools/tools/webhook/main.js")) webhook = server;
          continue;
        }
        if (block.kind === "runs") {
          // The servers above start in the background: a command that needs one is retried until it is up.
          await expect
            .poll(
              async () => {
                const result = await run(script);
                for (const s of running) expect(s.child.exitCode, s.output()).toBeNull();
                return result.code;
              },
              { timeout: 60_000, interval: 500 },
            )
            .toBe(0);
          continue;
        }
        // receives: asked until the critical margin alert is among the notifications.
        await expect
          .poll(
            async () => {
              for (const s of running) expect(s.child.exitCode, s.output()).toBeNull();
              delivered = (await run(script)).output;
              return delivered;
            },
            { timeout: DELIVERY_TIMEOUT_MS, interval: 2_000 },
          )
          .toMatch(/"alertname": "TradingMarginRatioCritical"/);
      }
      const notifications = JSON.parse(delivered) as Array<{ receiver: string; status: string; alerts: Array<{ labels: Record<string, string> }> }>;
      const page = notifications.find((n) => n.alerts.some((a) => a.labels.alertname === "TradingMarginRatioCritical"));
      expect(page?.receiver).toBe("trading-critical");
      expect(page?.status).toBe("firing");

      // The lines the page shows are those the webhook printed for that notification: the margin line as it is, and a
      // line per position near liquidation, whose direction and market follow the simulated prices.
      const [shown] = outputBlocks(DOC, doc).filter((b) => b.source.startsWith("node dist-tools/tools/webhook/main.js"));
      const [margin, ...positions] = shown!.lines;
      expect(positions.length).toBeGreaterThan(0);
      const anyPosition = (line: string) => line.replace(/Position (LONG|SHORT) \S+ of/, "Position DIRECTION MARKET of");
      const firing = async () => {
        await expect.poll(() => webhook?.output().split("\n"), { timeout: 30_000 }).toContain(margin);
        return webhook!
          .output()
          .split("\n")
          .filter((l) => l.startsWith("FIRING "));
      };
      const printed = await firing();
      expect(printed).toContain(margin);
      expect([...new Set(printed.map(anyPosition))].sort()).toEqual([...new Set(shown!.lines.map(anyPosition))].sort());
    },
    DELIVERY_TIMEOUT_MS + 120_000,
  );
});
