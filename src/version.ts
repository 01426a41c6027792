// The exporter's version and build, for build_info and --version (in the form Prometheus prints).

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
/** Also set by the image's build arguments, else "unknown": a package installed from npm knows none of them. */
const BRANCH = process.env.TRADING_EXPORTER_BRANCH ?? "unknown";
const BUILD_USER = process.env.TRADING_EXPORTER_BUILD_USER ?? "unknown";
const BUILD_DATE = process.env.TRADING_EXPORTER_BUILD_DATE ?? "unknown";

/** One word, as version scrapers split on spaces: blanks become "_", nothing becomes "unknown". */
function word(value: string): string {
  const text = value.trim().replace(/\s+/g, "_");
  return text === "" ? "unknown" : text;
}

/**
 * --version, laid out as prometheus/common's version.Print so the scripts that read Prometheus
 * binaries' versions read it too; its "go version" line names Node here.
 */
export function versionText(): string {
  return [
    `trading-exporter, version ${word(VERSION)} (branch: ${word(BRANCH)}, revision: ${word(REVISION)})`,
    `  build user:       ${word(BUILD_USER)}`,
    `  build date:       ${word(BUILD_DATE)}`,
    `  node version:     ${process.version}`,
  ].join("\n");
}
