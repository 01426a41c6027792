// Bodies too big to hold: a streamed oversized JSON document of exact size, one of empty objects, and a cached gzip bomb.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { createGzip } from "node:zlib";

const BLOCK_BYTES = 64 * 1024;

/** A JSON document of `bytes` bytes: prefix, unit (sep unit)*, padding, suffix. */
interface Repeating {
  prefix: string;
  unit: string;
  sep: string;
  pad: string;
  suffix: string;
}

/** Arrays repeat their first element; objects gain a long "padding" string. */
export function repeatingShape(value: unknown, body: Buffer): Repeating {
  if (Array.isArray(value)) {
    const first: unknown = value[0];
    return { prefix: "[", unit: first === undefined ? "0" : JSON.stringify(first), sep: ",", pad: " ", suffix: "]" };
  }
  const text = body.toString("utf8").trimEnd();
  const open = text.endsWith("}") && text !== "{}" ? `${text.slice(0, -1)},` : "{";
  return { prefix: `${open}"padding":"`, unit: "x", sep: "", pad: "x", suffix: '"}' };
}

/**
 * The answer's list made of empty objects: an array answer becomes `[{},{},...]`; an object answer
 * (account-info) keeps its other members and gets a `positions` list of them. Valid JSON whose cost
 * is all in the number of values: the hostile body a size cap alone does not stop.
 */
export function emptyObjectsShape(value: unknown): Repeating {
  if (Array.isArray(value) || typeof value !== "object" || value === null) return { prefix: "[", unit: "{}", sep: ",", pad: " ", suffix: "]" };
  const { positions: _positions, ...rest } = value as Record<string, unknown>;
  const members = JSON.stringify(rest).slice(1, -1);
  return { prefix: `{${members}${members === "" ? "" : ","}"positions":[`, unit: "{}", sep: ",", pad: " ", suffix: "]}" };
}

async function writeChunk(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }
  return !res.destroyed;
}

/** Stream the document without ever holding it: one 64 KiB block is written repeatedly. */
export async function streamRepeating(res: ServerResponse, shape: Repeating, bytes: number): Promise<void> {
  const len = (s: string): number => Buffer.byteLength(s);
  const step = len(shape.unit) + len(shape.sep);
  const fixed = len(shape.prefix) + len(shape.unit) + len(shape.suffix);
  const repeats = Math.max(0, Math.floor((bytes - fixed) / step));
  const padding = shape.pad.repeat(Math.max(0, bytes - fixed - repeats * step));
  const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / step));
  const block = Buffer.from((shape.unit + shape.sep).repeat(perBlock));
  if (!(await writeChunk(res, Buffer.from(shape.prefix)))) return;
  for (let i = 0; i < Math.floor(repeats / perBlock); i++) {
    if (!(await writeChunk(res, block))) return;
  }
  const tail = (shape.unit + shape.sep).repeat(repeats % perBlock) + shape.unit + padding + shape.suffix;
  if (await writeChunk(res, Buffer.from(tail))) res.end();
}

const bombs = new Map<number, Promise<Buffer>>();

async function buildBomb(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = once(gzip, "end");
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  let left = Math.max(0, bytes - 2);
  gzip.write("[");
  while (left > 0) {
    const piece = left >= spaces.length ? spaces : spaces.subarray(0, left);
    left -= piece.length;
    if (!gzip.write(piece)) await once(gzip, "drain");
  }
  gzip.end("]");
  await ended;
  return Buffer.concat(out);
}

/** Gzip of "[", spaces, "]" inflating to exactly `bytes`; built once per size and kept. */
export function gzipBomb(bytes: number): Promise<Buffer> {
  let bomb = bombs.get(bytes);
  if (bomb === undefined) {
    if (bombs.size >= 8) bombs.clear();
    bomb = buildBomb(bytes);
    bombs.set(bytes, bomb);
    bomb.catch(() => bombs.delete(bytes));
  }
  return bomb;
}
