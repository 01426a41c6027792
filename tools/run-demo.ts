// The demo (`npm run demo`, src/demo.ts): the built-in simulated venue plus the exporter pointed at it, on this machine.

import { ConfigError } from "../src/config/errors.js";
import { buildConfig } from "../src/config/load.js";
import { libraryErrorText } from "../src/util/error-text.js";
import { ListenError } from "../src/http/server.js";
import { createLogger } from "../src/log.js";
import { startService } from "../src/lifecycle.js";
import { Redactor } from "../src/util/redact.js";
import { startSimulator } from "./simulator/server.js";

const DEMO_KEY = "demo-key";

async function demo(): Promise<void> {
  // The simulated clock starts now (the simulator's default), so order ages read as real ones on a dashboard.
  const venue = await startSimulator({ host: "127.0.0.1", port: 0, seed: 1, apiKey: DEMO_KEY, tickMs: 1000 });
  const config = buildConfig(
    {
      env: {
        TRADING_BASE_URL: venue.url,
        TRADING_API_KEY: DEMO_KEY,
        TRADING_COLLATERAL_IDS: "USDC,USDT",
        TRADING_ACCOUNT: "demo",
        TRADING_LISTEN_ADDRESS: process.env.TRADING_LISTEN_ADDRESS ?? "127.0.0.1:9842",
        TRADING_LOG_LEVEL: process.env.TRADING_LOG_LEVEL ?? "info",
      },
    },
    undefined,
  ).config;
  // One redactor for the log and the service, as the exporter's command keeps: the demo's key never reaches a log line.
  const redactor = new Redactor();
  const logger = createLogger(config.logLevel, undefined, [], "json", redactor);
  const { server, close } = await startService(config, logger, { redactor });
  process.stdout.write(`simulated venue: ${venue.url}\nexporter:        ${server.url}\nopen ${server.url}metrics  (Ctrl-C stops both)\n`);
  const stop = () => void Promise.all([close(1000), venue.close()]).then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

demo().catch((error: unknown) => {
  // Our own words only: a listen error's message (EADDRINUSE...) is Node's, not ours. The demo reads its address from the variable alone.
  const lines =
    error instanceof ConfigError
      ? error.problems
      : error instanceof ListenError
        ? [error.line("TRADING_LISTEN_ADDRESS")]
        : [`${libraryErrorText(error, "could not start: unexpected error")}; please report it with the output of npm run demo`];
  process.stderr.write(lines.map((line) => `demo: ${line}\n`).join(""));
  process.exit(1);
});
