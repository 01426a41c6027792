// Connections to the exporter end: a silent TLS or plain connection within the header bound, an idle
// keep-alive one after the idle timeout, and one past the connection cap at once, counted. A client
// socket sees the server's close only while it reads: each test reads (`closedAfter`).

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectionEvents } from "../src/http/connection-cap.js";
import type { ListenOptions, RunningServer } from "../src/http/server.js";
import { listen, WEB_DEFAULTS } from "./helpers/listen.js";
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
  a.get("/refused/:status", (req, res) => void res.status(Number(req.params.status)).send("no"));
  a.post("/", (_req, res) => void res.send("ok"));
  return a;
}

/** `app()` plus `/held`, answered only once `release()` is called; `reached(n)` resolves when n of them are in. */
function heldApp() {
  const a = app();
  const waiting: Array<() => void> = [];
  let arrived = 0;
  const arrivals: Array<{ n: number; resolve: () => void }> = [];
  a.get("/held", (_req, res) => {
    waiting.push(() => void res.send("ok"));
    arrived++;
    for (const w of arrivals.filter((w) => w.n <= arrived)) w.resolve();
  });
  return {
    app: a,
    reached: (n: number) => new Promise<void>((resolve) => (arrived >= n ? resolve() : arrivals.push({ n, resolve }))),
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

/** Server events counted in `self`; `next(reason)` resolves at the next drop for that reason. */
function countedEvents(self: SelfMetrics) {
  const waiting: Array<{ reason: string; resolve: () => void }> = [];
  const events: ConnectionEvents = {
    opened: () => self.connections.opened(),
    closed: () => self.connections.closed(),
    dropped: (reason) => {
      self.connections.dropped(reason);
      const at = waiting.findIndex((w) => w.reason === reason);
      if (at >= 0) waiting.splice(at, 1)[0]!.resolve();
    },
    writeTimedOut: () => self.connections.writeTimedOut(),
  };
  const next = (reason: string) => new Promise<void>((resolve) => waiting.push({ reason, resolve }));
  return { events, next };
}

/** Sends `request` on `socket` and resolves with what came back once `until` matches it. */
function ask(socket: Socket, request: string, until = /ok$|no$/): Promise<string> {
  let text = "";
  socket.setEncoding("utf8");
  return new Promise((resolve) => {
    const onData = (chunk: string) => {
      text += chunk;
      if (until.test(text)) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.write(request);
  });
}

const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

async function serve(options: Partial<ListenOptions>, run: (server: RunningServer, port: number) => Promise<void>): Promise<void> {
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

/** A server of `heldApp()` with room for two connections, its events counted in `self`. */
async function serveHeld(run: (port: number, held: ReturnType<typeof heldApp>, self: SelfMetrics) => Promise<void>): Promise<void> {
  const self = new SelfMetrics({ defaultMetrics: false });
  const held = heldApp();
  const server = await listen(held.app, "127.0.0.1", 0, { maxConnections: 2, events: countedEvents(self).events });
  try {
    await run(Number(new URL(server.url).port), held, self);
  } finally {
    await server.close(0);
  }
}

/** A plain connection, once open, whose close by the server is no error. */
async function newcomer(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await opened(socket);
  return socket;
}

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
});

describe("a keep-alive connection", () => {
  it("is answered, then closed after the idle timeout", async () => {
    await serve({ headersTimeoutMs: BOUND_MS, idleTimeoutSeconds: BOUND_MS / 1000 }, async (_server, port) => {
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
    const server = await listen(slow, "127.0.0.1", 0, { headersTimeoutMs: BOUND_MS, idleTimeoutSeconds: BOUND_MS / 1000 });
    try {
      const res = await fetch(server.url);
      expect(await res.text()).toBe("late");
    } finally {
      await server.close(0);
    }
  });
});

describe("the connection cap", () => {
  it("closes a connection past it at once when every connection inside is being answered, counts it, and answers those", async () => {
    await serveHeld(async (port, held, self) => {
      const inside = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
      for (const s of inside) await opened(s);
      const answers = inside.map((s) => ask(s, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n"));
      await held.reached(2);
      const past = connect(port, "127.0.0.1");
      await closedAfter(past);
      const text = await self.registry.metrics();
      expect(text).toContain('trading_exporter_http_connections_dropped_total{reason="cap"} 1\n');
      expect(text).toContain("trading_exporter_http_connections_open 2\n");
      held.release();
      for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      for (const s of inside) s.destroy();
    });
  });

  /** Opens a connection in one of the states a client can leave it in without being answered. */
  const LEFT: ReadonlyArray<[string, (s: Socket) => Promise<unknown>]> = [
    ["has sent nothing", async () => undefined],
    ["has sent part of a request's head", async (s) => void s.write("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")],
    ["is answered but has sent only part of its request's body", async (s) => ask(s, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx")],
    ["is idle after an answer", async (s) => ask(s, GET)],
  ];

  it.each(LEFT)("admits a newcomer by closing the connection that %s", async (_kind, leave) => {
    await serveHeld(async (port, held, self) => {
      const [left, busy] = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
      for (const s of [left, busy]) await opened(s);
      await leave(left);
      const leftClosed = closedAfter(left);
      const busyAnswer = ask(busy, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
      await held.reached(1);
      const fresh = await newcomer(port);
      expect(await ask(fresh, GET)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      await leftClosed;
      held.release();
      expect(await busyAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(await self.registry.metrics()).toContain('trading_exporter_http_connections_dropped_total{reason="idle"} 1\n');
      for (const s of [busy, fresh]) s.destroy();
    });
  });

  /** Two connections in some state: the one that has gone longest without completing a request first. */
  const ORDERS: ReadonlyArray<[string, (port: number) => Promise<[gives: Socket, keeps: Socket]>]> = [
    [
      "the least recently used of two idle keep-alive connections",
      async (port) => {
        const [older, newer] = [await newcomer(port), await newcomer(port)];
        await ask(older, GET);
        await ask(newer, GET);
        return [older, newer];
      },
    ],
    [
      "a silent connection before a keep-alive one opened earlier and answered since",
      async (port) => {
        const [keepAlive, silent] = [await newcomer(port), await newcomer(port)];
        await ask(keepAlive, GET);
        return [silent, keepAlive];
      },
    ],
  ];

  it.each(ORDERS)("closes the one that has gone longest without completing a request: %s", async (_case, leave) => {
    const self = new SelfMetrics({ defaultMetrics: false });
    const { events } = countedEvents(self);
    await serve({ maxConnections: 2, events }, async (_server, port) => {
      const [gives, keeps] = await leave(port);
      const closed = closedAfter(gives);
      const fresh = await newcomer(port);
      expect(await ask(fresh, GET)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      await closed;
      expect(keeps.destroyed).toBe(false);
      expect(await ask(keeps, GET)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(await self.registry.metrics()).toContain('trading_exporter_http_connections_dropped_total{reason="idle"} 1\n');
      for (const s of [keeps, fresh]) s.destroy();
    });
  });

  it("frees an evicted connection's read timer at once, not after the read timeout", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    await serve({ maxConnections: 1, readTimeoutSeconds: 60 }, async (_server, port) => {
      const trickle = connect(port, "127.0.0.1");
      await opened(trickle);
      const before = timers();
      await ask(trickle, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx");
      expect(timers()).toBe(before + 1);
      const closed = closedAfter(trickle);
      const fresh = connect(port, "127.0.0.1");
      fresh.on("error", () => undefined);
      await closed;
      expect(timers()).toBe(before);
      fresh.destroy();
    });
  });

  it("over TLS, closes a silent connection for a newcomer and never one whose request is being answered", async () => {
    const held = heldApp();
    const server = await listen(held.app, "127.0.0.1", 0, { tls, maxConnections: 2 });
    try {
      const port = Number(new URL(server.url).port);
      const busy = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false });
      await opened(busy, "secureConnect");
      const busyAnswer = ask(busy, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
      await held.reached(1);
      const silent = connect(port, "127.0.0.1");
      await opened(silent);
      const silentClosed = closedAfter(silent);
      const fresh = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false });
      fresh.on("error", () => undefined);
      await opened(fresh, "secureConnect");
      expect(await ask(fresh, GET)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      await silentClosed;
      held.release();
      expect(await busyAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      for (const s of [busy, fresh]) s.destroy();
    } finally {
      await server.close(0);
    }
  });
});

describe("slots no idle, slow or refused client holds", () => {
  it("does not close a connection whose answer takes longer than the read timeout, its request being in", async () => {
    const self = new SelfMetrics({ defaultMetrics: false });
    const held = heldApp();
    const server = await listen(held.app, "127.0.0.1", 0, { readTimeoutSeconds: BOUND_MS / 1000, events: countedEvents(self).events });
    try {
      const client = await newcomer(Number(new URL(server.url).port));
      const answer = ask(client, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n");
      await held.reached(1);
      // Past the read timeout, measured by a second request that trickles a body and is closed for it.
      const trickle = await newcomer(Number(new URL(server.url).port));
      const cut = closedAfter(trickle);
      trickle.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx");
      await cut;
      held.release();
      expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(await self.registry.metrics()).toContain('trading_exporter_http_connections_dropped_total{reason="read_timeout"} 1\n');
      client.destroy();
    } finally {
      await server.close(0);
    }
  });

  it("closes a connection whose request body is not in within the read timeout, and counts it", async () => {
    const self = new SelfMetrics({ defaultMetrics: false });
    const { events, next } = countedEvents(self);
    await serve({ readTimeoutSeconds: BOUND_MS / 1000, events }, async (_server, port) => {
      const trickle = connect(port, "127.0.0.1");
      await opened(trickle);
      const closed = closedAfter(trickle);
      const timedOut = next("read_timeout");
      trickle.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx");
      await timedOut;
      await closed;
      expect(await self.registry.metrics()).toContain('trading_exporter_http_connections_dropped_total{reason="read_timeout"} 1\n');
    });
  });

  it.each([401, 403, 429])("closes a connection after answering it %i, and keeps one answered 200 open", async (status) => {
    const self = new SelfMetrics({ defaultMetrics: false });
    const { events } = countedEvents(self);
    await serve({ events }, async (_server, port) => {
      const [refused, served] = [connect(port, "127.0.0.1"), connect(port, "127.0.0.1")];
      for (const s of [refused, served]) await opened(s);
      const closed = closedAfter(refused);
      expect(await ask(refused, `GET /refused/${status} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      await closed;
      await ask(served, GET);
      expect(await ask(served, GET)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(await self.registry.metrics()).toContain('trading_exporter_http_connections_dropped_total{reason="refused"} 1\n');
      served.destroy();
    });
  });
});

describe("the write timeout", () => {
  /** Far more than the sockets' buffers on both ends hold, so a client that never reads cannot be written it all. */
  const BODY = Buffer.alloc(32 * 2 ** 20, "x");
  /** Long enough for a reader at a normal pace to take the whole body on a busy machine; short for the test. */
  const WRITE_MS = 2_000;

  function bigApp(): express.Express {
    const a = express();
    a.get("/big", (_req, res) => void res.set("content-length", String(BODY.byteLength)).end(BODY));
    a.get("/", (_req, res) => void res.send("ok"));
    return a;
  }

  /** A server whose events count in the self-metrics; `timedOut` resolves at its next write timeout. */
  async function serveBig(
    options: Partial<ListenOptions>,
    run: (port: number, timedOut: () => Promise<void>, self: SelfMetrics) => Promise<void>,
  ): Promise<void> {
    const self = new SelfMetrics({ defaultMetrics: false });
    const waiting: Array<() => void> = [];
    const events: ConnectionEvents = {
      opened: () => self.connections.opened(),
      closed: () => self.connections.closed(),
      dropped: (reason) => self.connections.dropped(reason),
      writeTimedOut: () => {
        self.connections.writeTimedOut();
        waiting.shift()?.();
      },
    };
    const server = await listen(bigApp(), "127.0.0.1", 0, { ...options, events });
    try {
      await run(Number(new URL(server.url).port), () => new Promise<void>((resolve) => waiting.push(resolve)), self);
    } finally {
      await server.close(0);
    }
  }

  /** A GET read as fast as it comes (the self-signed certificate accepted): its content-length and body. */
  function readBody(url: string): Promise<{ contentLength: string | undefined; body: Buffer }> {
    const get = url.startsWith("https:") ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      get(url, { rejectUnauthorized: false, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ contentLength: res.headers["content-length"], body: Buffer.concat(chunks) }));
        res.on("error", reject);
      }).on("error", reject);
    });
  }

  /** Every byte a socket reads until the server ends it, once it is let read. */
  function readAll(socket: Socket): Promise<Buffer> {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    return new Promise((resolve) => socket.once("close", () => resolve(Buffer.concat(chunks))));
  }

  it.each(["plain HTTP", "TLS"])(
    "closes the connection of a %s client that never reads, and a reader at a normal pace still gets the whole body",
    async (kind) => {
      const secure = kind === "TLS";
      await serveBig({ ...(secure ? { tls } : {}), writeTimeoutSeconds: WRITE_MS / 1000 }, async (port, timedOut, self) => {
        const started = performance.now();
        const stalled = secure ? tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false }) : connect(port, "127.0.0.1");
        await opened(stalled, secure ? "secureConnect" : "connect");
        stalled.pause();
        const cut = timedOut();
        stalled.write("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");

        // Meanwhile a client that reads gets all of it, as long as it said.
        const reader = await readBody(`${secure ? "https" : "http"}://127.0.0.1:${port}/big`);
        expect(Number(reader.contentLength)).toBe(BODY.byteLength);
        expect(reader.body.equals(BODY)).toBe(true);

        await cut;
        expect(performance.now() - started).toBeGreaterThanOrEqual(WRITE_MS - 50);
        expect(await self.registry.metrics()).toContain("trading_exporter_http_write_timeouts_total 1\n");
        // Let read, it finds the answer cut short: the connection was closed, not the answer finished.
        const received = readAll(stalled);
        stalled.resume();
        const head = (await received).subarray(0, 100).toString("latin1");
        if (!secure) expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect((await received).byteLength).toBeLessThan(BODY.byteLength);
      });
    },
    30_000,
  );

  it("does not close a keep-alive connection that waits between requests for longer than it", async () => {
    await serveBig({ writeTimeoutSeconds: 0.3, idleTimeoutSeconds: 60 }, async (port, _timedOut, self) => {
      const socket = connect(port, "127.0.0.1");
      await opened(socket);
      socket.setEncoding("utf8");
      let answers = "";
      let answered: () => void = () => undefined;
      socket.on("data", (chunk: string) => {
        answers += chunk;
        if (answers.endsWith("ok")) answered();
      });
      const ask = () =>
        new Promise<void>((resolve) => {
          answers = "";
          answered = resolve;
          socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        });
      await ask();
      // Idle three times the write timeout: the timeout is the idle timeout's to keep, and it is a minute.
      await new Promise((resolve) => setTimeout(resolve, 900));
      await ask();
      expect(answers).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(socket.destroyed).toBe(false);
      expect(await self.registry.metrics()).toContain("trading_exporter_http_write_timeouts_total 0\n");
      socket.destroy();
    });
  });

  it("is two minutes by default, past the longest scrape deadline (60 s) and the longest scrape interval Prometheus recommends", () => {
    expect(WEB_DEFAULTS.writeTimeoutSeconds).toBe(120);
  });
});
