// CLI entry point of the venue simulator: start it, print its URL, stop cleanly on SIGINT/SIGTERM.
import { refuseOlderNode } from "../../src/util/node-engines.js";

// Like the exporter, it refuses a Node.js older than package.json's engines rather than run on a release nothing tests.
refuseOlderNode("simulator");
const { runCli } = await import("./cli.js");

const result = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

if (typeof result === "number") {
  process.exitCode = result;
} else {
  const stop = (): void => {
    void result.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
