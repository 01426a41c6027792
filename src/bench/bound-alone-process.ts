// Runs bound-alone.ts as a child with the exporter's runtime settings and returns its resident size.

import { spawn } from "node:child_process";
import { once } from "node:events";
import type { AloneMode } from "./bound-alone.js";
import type { VenueTarget } from "./bound.js";
import { imageEnvironment, shippedNodeFlags } from "./exporter-process.js";

const MAIN = new URL("./bound-alone.js", import.meta.url).pathname;

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
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`${mode} alone exited with ${code}`);
  return (JSON.parse(out) as { rssMB: number }).rssMB;
}
