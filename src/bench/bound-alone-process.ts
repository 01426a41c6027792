// Runs bound-alone.ts as a child with the exporter's runtime settings and returns its resident size.

import { spawn } from "node:child_process";
import { once } from "node:events";
import type { AloneMode } from "./bound-alone.js";
import type { VenueTarget } from "./bound.js";
import { imageEnvironment, shippedNodeFlags } from "./exporter-process.js";

const MAIN = new URL("./bound-alone.js", import.meta.url).pathname;

/** A scrape of the bound takes well under a second here; a child that outlasts this is stuck. */
const MS_PER_SCRAPE_LIMIT = 1000;

/** RSS in MB of `mode` alone after `scrapes` back-to-back scrapes, run as the exporter runs (same V8 flag, same malloc setting). */
export async function aloneRssMB(mode: AloneMode, target: VenueTarget, scrapes: number): Promise<number> {
  const child = spawn(process.execPath, [...shippedNodeFlags(), MAIN, mode, JSON.stringify(target), String(scrapes)], {
    env: { PATH: process.env.PATH ?? "", ...imageEnvironment() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const limitMs = 30_000 + scrapes * MS_PER_SCRAPE_LIMIT;
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${mode} alone ${signal === null ? `exited with ${code}` : `was stopped by ${signal} (limit ${limitMs} ms)`}`);
  const rss = (/^\{"rssMB":([0-9.]+)\}$/m.exec(out) ?? [])[1];
  if (rss === undefined) throw new Error(`${mode} alone printed no {"rssMB":...} line`);
  return Number(rss);
}
