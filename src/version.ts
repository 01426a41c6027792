// The exporter's version and build, for build_info and --version (in the form Prometheus prints).

import { readFileSync } from "node:fs";

/** The version in the package's package.json: beside dist/ (or src/), or two up from the tools' build, dist-tools/src/. */
function packageVersion(): string {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === "trading-exporter" && typeof pkg.version === "string") return pkg.version;
    } catch {}
  }
  return "unknown";
}

export const VERSION = packageVersion();
export const REVISION = process.env.TRADING_EXPORTER_REVISION ?? "unknown";

/** One word, as version scrapers split on spaces: blanks become "_", nothing (unset) becomes "unknown". */
function word(value: string | undefined): string {
  const text = (value ?? "").trim().replace(/\s+/g, "_");
  return text === "" ? "unknown" : text;
}

/** --version laid out as prometheus/common's version.Print, Node in place of Go; branch, user and date come from the image's build arguments. */
export function versionText(): string {
  return [
    `trading-exporter, version ${word(VERSION)} (branch: ${word(process.env.TRADING_EXPORTER_BRANCH)}, revision: ${word(REVISION)})`,
    `  build user:       ${word(process.env.TRADING_EXPORTER_BUILD_USER)}`,
    `  build date:       ${word(process.env.TRADING_EXPORTER_BUILD_DATE)}`,
    `  node version:     ${process.version}`,
  ].join("\n");
}
