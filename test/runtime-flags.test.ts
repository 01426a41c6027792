// The exporter's V8 flags are the same wherever it is started: the bin's shebang, `npm start` and
// the container image's ENTRYPOINT.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const shebang = readFileSync("src/main.ts", "utf8").split("\n", 1)[0]!;
const flags = shebang.split(/\s+/).filter((p) => p.startsWith("--"));

describe("the shipped node flags", () => {
  it("are set in the shebang", () => {
    expect(shebang.startsWith("#!/usr/bin/env -S node ")).toBe(true);
    expect(flags).toContain("--max-semi-space-size=16");
    expect(flags).toContain("--heap-growing-percent=50");
    expect(flags).toContain("--expose-gc");
  });

  it("are the same in npm start, and in npm run soak, which measures the exporter as it runs", () => {
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toContain(`node ${flags.join(" ")} dist/main.js`);
    expect(scripts.soak).toContain(`${flags.join(" ")} dist-bench/bench/soak.js`);
  });

  it("are the same in the image, on its ENTRYPOINT (NODE_OPTIONS refuses --heap-growing-percent)", () => {
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync("Dockerfile", "utf8"))?.[1];
    expect(JSON.parse(entry ?? "[]")).toEqual(["node", ...flags, "dist/main.js"]);
  });
});
