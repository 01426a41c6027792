// CLI entry point of the webhook receiver: `node dist/webhook/main.js [--host H] [--port P]`; prints each alert it is sent.
import { refuseOlderNode } from "../../src/util/node-engines.js";

// Like the exporter, it refuses a Node.js older than package.json's engines rather than run on a release nothing tests.
refuseOlderNode("webhook receiver");
const { startReceiver } = await import("./receiver.js");

const USAGE = "usage: node dist/webhook/main.js [--host 127.0.0.1] [--port 5001]";

function parse(args: string[]): { host: string; port: number } | string {
  const out = { host: "127.0.0.1", port: 5001 };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = args[i + 1];
    if (flag === "--help" || flag === "-h") return USAGE;
    if ((flag !== "--host" && flag !== "--port") || value === undefined) return `unknown or incomplete flag ${JSON.stringify(flag)}\n${USAGE}`;
    i++;
    if (flag === "--host") out.host = value;
    else {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) return `--port: not a port number: ${JSON.stringify(value)}`;
      out.port = port;
    }
  }
  return out;
}

function listenProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EADDRINUSE") return "the address is already in use";
  if (code === "EACCES") return "permission denied (a port below 1024 needs privileges)";
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") return "no such address on this host";
  return "the address could not be used";
}

const options = parse(process.argv.slice(2));
if (typeof options === "string") {
  process.stderr.write(`${options}\n`);
  process.exitCode = options === USAGE ? 0 : 2;
} else {
  const receiver = await startReceiver({ ...options, print: (line) => process.stdout.write(`${line}\n`) }).catch((error: unknown) => {
    // Node's own message and stack are not for the person starting the pager: one line, our words.
    process.stderr.write(`webhook receiver: cannot listen on ${options.host}:${options.port}: ${listenProblem(error)}\n`);
    process.exit(1);
  });
  process.stdout.write(`webhook receiver listening on ${receiver.url} (GET / lists the notifications received)\n`);
  const stop = (): void => {
    void receiver.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
