// CLI entry point of the webhook receiver: `node dist/webhook/main.js [--host H] [--port P]`; prints each alert it is sent.
import { startReceiver } from "./receiver.js";

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

const options = parse(process.argv.slice(2));
if (typeof options === "string") {
  process.stderr.write(`${options}\n`);
  process.exitCode = options === USAGE ? 0 : 2;
} else {
  const receiver = await startReceiver({ ...options, print: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(`webhook receiver listening on ${receiver.url} (GET / lists the notifications received)\n`);
  const stop = (): void => {
    void receiver.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
