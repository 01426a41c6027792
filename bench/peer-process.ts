// The naive peer (naive-peer.ts) as a child process for the benchmark, run with Node's defaults.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

export interface PeerProcess {
  url: string;
  pid: number;
  close(): Promise<void>;
}

const MAIN = new URL("./naive-peer.js", import.meta.url).pathname;

export async function startPeerProcess(env: Record<string, string>): Promise<PeerProcess> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /(http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`naive peer exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    async close() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
