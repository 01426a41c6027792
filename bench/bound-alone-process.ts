// Runs bound-alone.ts as a child with the exporter's runtime settings and returns its resident size.

import { spawn } from "node:child_process";
import { once } from "node:events";
import type { AloneMode } from "./bound-alone.js";
import type { VenueTarget } from "./bound.js";
import { benchNodeArgs, imageEnvironment, shippedNodeFlags } from "./exporter-process.js";

const MAIN = new URL("./bound-alone.js", import.meta.url).pathname;

/** A scrape of the bound takes well under a second here; a child that outlasts this is stuck. */
const MS_PER_SCRAPE_LIMIT = 1000;

/**
 * RSS in MB of `mode` alone after `scrapes` scrapes (back to back, or one every `intervalMs`), and
 * the most after any, run as the exporter runs (same V8 flags, BENCH_NODE_ARGS too, same malloc setting). `signal` stops it.
 */
export async function aloneRssMB(
  mode: AloneMode,
  target: VenueTarget,
  scrapes: number,
  intervalMs = 0,
  signal?: AbortSignal,
): Promise<{ rssMB: number; maxRssMB: number }> {
  const child = spawn(process.execPath, [...shippedNodeFlags(), ...benchNodeArgs(), MAIN, mode, JSON.stringify(target), String(scrapes), String(intervalMs)], {
    env: { PATH: process.env.PATH ?? "", ...imageEnvironment() },
    stdio: ["ignore", "pipe", "inherit"],
    ...(signal === undefined ? {} : { signal }),
  });
  child.on("error", () => undefined); // an abort is reported by the exit below
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const limitMs = 30_000 + scrapes * (MS_PER_SCRAPE_LIMIT + intervalMs);
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const [code, stopped] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${mode} alone ${stopped === null ? `exited with ${code}` : `was stopped by ${stopped}`}`);
  const match = /^\{"rssMB":([0-9.]+),"maxRssMB":([0-9.]+)\}$/m.exec(out);
  if (match === null) throw new Error(`${mode} alone printed no {"rssMB":...} line`);
  return { rssMB: Number(match[1]), maxRssMB: Number(match[2]) };
}
