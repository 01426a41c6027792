// The exporter's version and revision, for build_info and --version.

import { readFileSync } from "node:fs";

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

export const VERSION = packageVersion();
/** Set at build time by the image (TRADING_EXPORTER_REVISION), else "unknown". */
export const REVISION = process.env.TRADING_EXPORTER_REVISION ?? "unknown";
