// Whether this Node.js is inside package.json's `engines.node`, so start-up can warn on an unsupported one.

import { readFileSync } from "node:fs";

/** package.json's `engines.node`, or undefined when it cannot be read. */
export function enginesRange(): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines?: { node?: unknown } };
    return typeof pkg.engines?.node === "string" ? pkg.engines.node : undefined;
  } catch {
    return undefined;
  }
}

const parts = (version: string): number[] =>
  version
    .replace(/^v/, "")
    .split(".")
    .map((p) => Number.parseInt(p, 10) || 0);

function atLeast(version: number[], floor: number[]): boolean {
  for (let i = 0; i < 3; i++) {
    const a = version[i] ?? 0;
    const b = floor[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/**
 * Whether `version` ("24.1.0" or "v24.1.0") satisfies `range`: alternatives joined by `||`, each `>=X.Y.Z`,
 * `^X[.Y.Z]` or `X` (that major). Undefined for a range in any other form: no verdict rather than a wrong one.
 */
export function satisfiesEngines(version: string, range: string): boolean | undefined {
  const v = parts(version);
  let verdict = false;
  for (const alternative of range.split("||").map((a) => a.trim())) {
    const floor = /^>=\s*v?(\d+(?:\.\d+){0,2})$/.exec(alternative);
    const caret = /^(?:\^)?v?(\d+(?:\.\d+){0,2})$/.exec(alternative);
    if (floor?.[1] !== undefined) verdict ||= atLeast(v, parts(floor[1]));
    else if (caret?.[1] !== undefined) {
      const f = parts(caret[1]);
      verdict ||= v[0] === f[0] && atLeast(v, f);
    } else return undefined;
  }
  return verdict;
}
