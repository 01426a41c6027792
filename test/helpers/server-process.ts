// Starts a real server binary (Prometheus, Alertmanager) on a free 127.0.0.1 port, waits for /-/ready, and stops it.

import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const POLL_MS = 300;
const LOG_LINES_KEPT = 200;

/** Absolute path of the first of `names` on PATH; otherwise an error that says how to install it. */
export function findBinary(names: string[], install: string): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not in this directory
      }
    }
  }
  throw new Error(`\`${names.join("` or `")}\` is not on PATH; this end-to-end test needs the real binary: ${install}`);
}

/** A port that was free a moment ago: bind port 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("could not read the bound port"))));
    });
  });
}

class StartError extends Error {
  override readonly name = "StartError";
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}

export interface ServerProcess {
  url: string;
  /** The last lines it logged, for failure messages. */
  logTail(): string;
  stop(): Promise<void>;
}

interface Child {
  child: ChildProcess;
  exited: Promise<void>;
  hasExited(): boolean;
  log: string[];
}

function spawnServer(binary: string, args: string[], cwd: string): Child {
  const child = spawn(binary, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (log.length > LOG_LINES_KEPT) log.splice(0, log.length - LOG_LINES_KEPT);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let done = false;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      done = true;
      resolve();
    });
    child.once("error", (err) => {
      log.push(`spawn error: ${err.message}`);
      done = true;
      resolve();
    });
  });
  return { child, exited, hasExited: () => done, log };
}

async function stopChild(c: Child): Promise<void> {
  if (c.hasExited()) return;
  c.child.kill("SIGTERM");
  const graceful = await Promise.race([c.exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), STOP_GRACE_MS).unref())]);
  if (!graceful && !c.hasExited()) {
    c.child.kill("SIGKILL");
    await c.exited;
  }
}

async function untilReady(c: Child, what: string, url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (c.hasExited()) {
      const tail = c.log.slice(-20).join("\n");
      throw new StartError(`${what} exited before it was ready:\n${tail}`, /address already in use/i.test(tail));
    }
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new StartError(`${what} was not ready within ${READY_TIMEOUT_MS} ms:\n${c.log.slice(-20).join("\n")}`, false);
}

/**
 * Runs `binary` with `args(port)` in `cwd` on a free port and resolves once /-/ready answers 200.
 * Retries once on a port taken between choosing and binding it.
 */
export async function startServer(what: string, binary: string, args: (port: number) => string[], cwd: string): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const c = spawnServer(binary, args(port), cwd);
    try {
      await untilReady(c, what, url);
    } catch (err) {
      await stopChild(c);
      if (err instanceof StartError && err.addressInUse && attempt === 1) continue;
      throw err;
    }
    let stopping: Promise<void> | undefined;
    return {
      url,
      logTail: () => c.log.slice(-20).join("\n"),
      stop() {
        stopping ??= stopChild(c);
        return stopping;
      },
    };
  }
}
