// The version build_info and --version show is package.json's, from every build that runs the exporter's code:
// the demo and the simulator run it from the tools' build, dist-tools/src/, one folder deeper than dist/.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

describe("the exporter's version", () => {
  it.each(["../src/version.ts", "../dist/version.js", "../dist-tools/src/version.js"])("is package.json's when read from %s", async (path) => {
    const module = (await import(new URL(path, import.meta.url).href)) as { VERSION: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(module.VERSION).toBe(version);
  });
});
