// Real gzip clients as judges: Python's zlib and curl --compressed, which read only a body's first
// gzip member. CI installs both, so their absence is a failure, not a skip.

import { execFile, spawnSync } from "node:child_process";

/** Reads stdin as gzip with one decompressobj (wbits 31): what it decoded, and what it left over. */
const PYTHON_GUNZIP = `
import sys, zlib
d = zlib.decompressobj(31)
out = d.decompress(sys.stdin.buffer.read())
sys.stdout.buffer.write(out)
sys.stderr.write("%d %d" % (len(d.unused_data), 1 if d.eof else 0))
`;

export interface FirstMember {
  /** The text of the first gzip member. */
  text: Buffer;
  /** Bytes after the first member (a second member, for one): 0 for a single-member body. */
  leftOver: number;
  /** The member ended properly (final block and trailer read). */
  complete: boolean;
}

/** Decodes `body` with python3's `zlib.decompressobj(31)`, which stops after the first member. */
export function pythonFirstMember(body: Buffer): FirstMember {
  const result = spawnSync("python3", ["-c", PYTHON_GUNZIP], { input: body, timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw new Error(`python3 could not run (${result.error.message}); install it with: apt-get install python3`);
  const stderr = result.stderr.toString("utf8");
  if (result.status !== 0) throw new Error(`python3 zlib failed: ${stderr.trim().split("\n").pop()}`);
  const [leftOver, complete] = stderr.trim().split(" ").map(Number);
  return { text: result.stdout, leftOver: leftOver ?? -1, complete: complete === 1 };
}

/**
 * GET `url` with `curl --compressed` (it asks for gzip and decodes the answer): the decoded body.
 * Asynchronous: the server under test answers from this same process.
 */
export function curlCompressed(url: string, headers: Record<string, string> = {}): Promise<Buffer> {
  const args = ["--silent", "--show-error", "--fail", "--compressed", "--max-time", "60"];
  for (const [name, value] of Object.entries(headers)) args.push("--header", `${name}: ${value}`);
  return new Promise((resolve, reject) => {
    execFile("curl", [...args, url], { encoding: "buffer", maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout);
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      reject(new Error(missing ? "curl is not on PATH; install it with: apt-get install curl" : `curl --compressed failed: ${stderr.toString("utf8").trim()}`));
    });
  });
}
