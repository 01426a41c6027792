// Smoke run of the built CLIs under whichever node runs this script: simulator and exporter as
// child processes on port 0, one scrape, a few families checked, both stopped. Exit 0 or 1.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

const node = process.execPath;
const children = [];

function start(args, env, stream, pattern) {
  const child = spawn(node, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const lines = createInterface({ input: child[stream] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} printed no address within 20 s`)), 20_000);
    lines.on("line", (line) => {
      const match = pattern.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited early with ${code}`)));
  });
}

try {
  const venue = await start(["dist-tools/tools/simulator/main.js", "--port", "0", "--api-key", "smoke-key"], {}, "stdout", /(http:\/\/127\.0\.0\.1:\d+)/);
  const exporter = await start(
    ["dist/main.js"],
    {
      TRADING_BASE_URL: venue,
      TRADING_API_KEY: "smoke-key",
      TRADING_COLLATERAL_IDS: "USDC,USDT",
      TRADING_LISTEN_ADDRESS: "127.0.0.1:0",
    },
    "stderr",
    /"url":"(http:\/\/127\.0\.0\.1:\d+\/)"/,
  );
  const res = await fetch(new URL("metrics", exporter));
  const text = await res.text();
  const wanted = ['trading_up{account="default"} 1', "trading_account_margin_ratio{", "trading_market_info{", "trading_active_orders{"];
  const missing = wanted.filter((w) => !text.includes(w));
  if (res.status !== 200 || missing.length > 0) throw new Error(`scrape ${res.status}, missing ${missing.join(", ")}`);
  console.log(`smoke ok on node ${process.version}: ${text.split("\n").filter((l) => l.startsWith("trading_")).length} trading series`);
} catch (error) {
  console.error(`smoke failed on node ${process.version}: ${error.message}`);
  process.exitCode = 1;
} finally {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => (c.exitCode === null ? once(c, "exit") : undefined)));
}
