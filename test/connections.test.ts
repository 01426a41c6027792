// Connections to the exporter end: a silent TLS or plain connection within the header bound, an idle
// keep-alive one after the idle timeout, and one past the connection cap at once, counted. A client
// socket sees the server's close only while it reads: each test reads (`closedAfter`).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConnectionEvents, HEADERS_TIMEOUT_MS, type ListenOptions, listen, type RunningServer } from "../src/http/server.js";
import { SelfMetrics } from "../src/metrics/self.js";

const BOUND_MS = 300;
let dir = "";
let tls: { key: string; cert: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "connections-test-"));
  const [key, cert] = [join(dir, "server.key"), join(dir, "server.crt")];
  // A P-256 key: quick to make, and the handshake is not what these tests measure.
  const args = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1", "-days", "1"];
  execFileSync("openssl", [...args, "-keyout", key, "-out", cert], { stdio: "pipe" });
  tls = { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
});

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

function app(): express.Express {
  const a = express();
  a.get("/", (_req, res) => void res.send("ok"));
  return a;
}

async function serve(options: ListenOptions, run: (server: RunningServer, port: number) => Promise<void>): Promise<void> {
  const server = await listen(app(), "127.0.0.1", 0, options);
  try {
    await run(server, Number(new URL(server.url).port));
  } finally {
    await server.close(0);
  }
}

/** Milliseconds from now until `socket` closes (the server closed it: the client never does). */
function closedAfter(socket: Socket): Promise<number> {
  const started = performance.now();
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  return new Promise((resolve) => socket.once("close", () => resolve(performance.now() - started)));
}

const opened = (socket: Socket, event = "connect") => new Promise<void>((resolve) => socket.once(event, () => resolve()));

describe("a connection that never says anything", () => {
  it("is closed within the bound over TLS when it never sends a ClientHello (Node's default holds it 120 s)", async () => {
    await serve({ tls, headersTimeoutMs: BOUND_MS }, async (_server, port) => {
      const socket = connect(port, "127.0.0.1");
      const closed = closedAfter(socket);
      expect(await closed).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect(await closed).toBeLessThan(BOUND_MS + 5_000);
    });
  }, 20_000);

  it("is closed within the bound over TLS when it finished the handshake and then sends no request", async () => {
    await serve({ tls, headersTimeoutMs: BOUND_MS }, async (_server, port) => {
      const socket = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false });
      await opened(socket, "secureConnect");
      expect(await closedAfter(socket)).toBeLessThan(BOUND_MS + 5_000);
    });
  }, 20_000);

  it("is closed within the bound over plain HTTP", async () => {
    await serve({ headersTimeoutMs: BOUND_MS }, async (_server, port) => {
      const socket = connect(port, "127.0.0.1");
      await opened(socket);
      expect(await closedAfter(socket)).toBeLessThan(BOUND_MS + 5_000);
    });
  }, 20_000);

  it("bounds the handshake by the header timeout, 10 s by default, as Go's net/http does", () => {
    expect(HEADERS_TIMEOUT_MS).toBe(10_000);
  });
});

describe("a keep-alive connection", () => {
  it("is answered, then closed after the idle timeout", async () => {
    await serve({ headersTimeoutMs: BOUND_MS, idleTimeoutMs: BOUND_MS }, async (_server, port) => {
      const socket = connect(port, "127.0.0.1");
      await opened(socket);
      let answers = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (answers += chunk));
      const closed = closedAfter(socket);
      socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      await closed;
      expect(answers).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    });
  }, 20_000);

  it("is not closed by the idle timeout while its scrape is still being answered", async () => {
    const slow = express();
    slow.get("/", (_req, res) => void setTimeout(() => res.send("late"), 3 * BOUND_MS));
    const server = await listen(slow, "127.0.0.1", 0, { headersTimeoutMs: BOUND_MS, idleTimeoutMs: BOUND_MS });
    try {
      const res = await fetch(server.url);
      expect(await res.text()).toBe("late");
    } finally {
      await server.close(0);
    }
  });
});

describe("the connection cap", () => {
  it("closes a connection past it at once, counts it, and keeps serving the ones inside it", async () => {
    const self = new SelfMetrics({ defaultMetrics: false });
    let open = 0;
    let reached: () => void = () => undefined;
    const twoOpen = new Promise<void>((resolve) => (reached = resolve));
    const events: ConnectionEvents = {
      opened: () => {
        self.connections.opened();
        if (++open === 2) reached();
      },
      closed: () => self.connections.closed(),
      dropped: () => self.connections.dropped(),
    };
    await serve({ maxConnections: 2, events }, async (_server, port) => {
      const inside = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
      for (const s of inside) s.on("error", () => undefined);
      await twoOpen;
      const past = connect(port, "127.0.0.1");
      await closedAfter(past);
      const text = await self.registry.metrics();
      expect(text).toContain("trading_exporter_http_connections_dropped_total 1\n");
      expect(text).toContain("trading_exporter_http_connections_open 2\n");
      const first = inside[0]!;
      let answer = "";
      first.setEncoding("utf8");
      const answered = new Promise<void>((resolve) =>
        first.on("data", (chunk: string) => {
          answer += chunk;
          if (answer.endsWith("ok")) resolve();
        }),
      );
      first.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      await answered;
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      for (const s of inside) s.destroy();
    });
  });
});
