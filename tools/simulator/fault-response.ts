// Answers a venue request according to an injected fault, from slow bodies to reset sockets.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { emptyObjectsShape, gzipBomb, repeatingShape, streamRepeating } from "./big-bodies.js";
import { missingFields, wrongContainer, wrongTypes } from "./corrupt.js";
import { JSON_TYPE, errorBody, sendBuffer, type Timers } from "./http-util.js";
import type { FaultSpec } from "./types.js";
import type { VenueAnswer } from "./types.js";

export const DEFAULTS = {
  latencyMs: 1_000,
  trickleMs: 2_000,
  status: 500,
  redirectStatus: 302,
  location: "http://127.0.0.2:1/elsewhere",
  oversizedBytes: 12 * 1024 * 1024,
  /** Just under the exporter's default 10 MiB cap, so the body is read, not refused. */
  emptyObjectsBytes: 9_900_000,
  gzipBombBytes: 64 * 1024 * 1024,
} as const;

/** About this long between trickled pieces. */
const TRICKLE_INTERVAL_MS = 25;
const NOT_JSON = Buffer.from("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n");

function trickle(res: ServerResponse, answer: VenueAnswer, totalMs: number, timers: Timers): void {
  const body = answer.body;
  const pieces = Math.max(1, Math.min(body.length, Math.floor(totalMs / TRICKLE_INTERVAL_MS)));
  const size = Math.ceil(body.length / pieces);
  const interval = totalMs / pieces;
  res.writeHead(answer.status, { "Content-Type": JSON_TYPE, "Content-Length": body.length });
  let offset = 0;
  const next = (): void => {
    if (res.destroyed) return;
    res.write(body.subarray(offset, offset + size));
    offset += size;
    if (offset >= body.length) res.end();
    else timers.after(interval, next);
  };
  next();
}

function reset(req: IncomingMessage): void {
  try {
    req.socket.resetAndDestroy();
  } catch {
    req.socket.destroy();
  }
}

function fail(res: ServerResponse, err: unknown): void {
  if (!res.headersSent) sendBuffer(res, 500, errorBody(`simulator: ${String(err)}`));
  else res.destroy();
}

export function respondWithFault(fault: FaultSpec, answer: () => VenueAnswer, req: IncomingMessage, res: ServerResponse, timers: Timers): void {
  const corrupted = (transform: (v: unknown) => unknown): void => {
    const a = answer();
    sendBuffer(res, a.status, Buffer.from(JSON.stringify(transform(a.value()))));
  };
  switch (fault.kind) {
    case "latency": {
      const a = answer();
      timers.after(fault.latencyMs ?? DEFAULTS.latencyMs, () => sendBuffer(res, a.status, a.body));
      return;
    }
    case "trickle":
      return trickle(res, answer(), fault.latencyMs ?? DEFAULTS.trickleMs, timers);
    case "hang":
      return; // the socket stays open until the client gives up or the simulator closes
    case "status": {
      const status = fault.status ?? DEFAULTS.status;
      const headers = fault.retryAfter === undefined ? {} : { "Retry-After": fault.retryAfter };
      return sendBuffer(res, status, errorBody(`${STATUS_CODES[status] ?? "status"} (simulated)`), headers);
    }
    case "malformed_json":
      return sendBuffer(res, 200, NOT_JSON);
    case "truncated_json": {
      const a = answer();
      return sendBuffer(res, a.status, a.body.subarray(0, Math.floor(a.body.length / 2)));
    }
    case "wrong_types":
      return corrupted(wrongTypes);
    case "missing_fields":
      return corrupted(missingFields);
    case "wrong_container":
      return corrupted(wrongContainer);
    case "oversized": {
      const a = answer();
      res.writeHead(a.status, { "Content-Type": JSON_TYPE });
      streamRepeating(res, repeatingShape(a.value(), a.body), fault.bytes ?? DEFAULTS.oversizedBytes).catch((err: unknown) => fail(res, err));
      return;
    }
    case "empty_objects": {
      const a = answer();
      res.writeHead(a.status, { "Content-Type": JSON_TYPE });
      streamRepeating(res, emptyObjectsShape(a.value()), fault.bytes ?? DEFAULTS.emptyObjectsBytes).catch((err: unknown) => fail(res, err));
      return;
    }
    case "gzip_bomb":
      gzipBomb(fault.bytes ?? DEFAULTS.gzipBombBytes).then(
        (bomb) => sendBuffer(res, 200, bomb, { "Content-Encoding": "gzip" }),
        (err: unknown) => fail(res, err),
      );
      return;
    case "redirect": {
      const status = fault.status ?? DEFAULTS.redirectStatus;
      if (res.headersSent) return;
      res.writeHead(status, { Location: fault.location ?? DEFAULTS.location, "Content-Length": 0 });
      res.end();
      return;
    }
    case "reset":
      return reset(req);
  }
}
