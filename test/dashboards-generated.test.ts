// The dashboards are code (grafana/src): the committed JSON must be exactly what the code builds, so a hand edit fails here.
// `npm run dashboards` rewrites grafana/dashboards/*.json from the code; review the diff.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dashboards, render } from "../grafana/src/generate.js";

const DIR = new URL("../grafana/dashboards/", import.meta.url);
const update = process.env.UPDATE_DASHBOARDS === "1";

describe("generated dashboards", () => {
  const built = dashboards();

  it.each(Object.keys(built))("%s is what grafana/src builds (npm run dashboards rewrites it)", (file) => {
    const text = render(built[file]);
    if (update) writeFileSync(new URL(file, DIR), text);
    expect(readFileSync(new URL(file, DIR), "utf8"), `grafana/dashboards/${file} differs from grafana/src: run npm run dashboards`).toBe(text);
  });

  it("grafana/dashboards holds the generated dashboards and nothing else", () => {
    expect(readdirSync(DIR).sort()).toEqual(Object.keys(built).sort());
  });

  it("renders with sorted keys, two-space indents and a trailing newline, the same twice", () => {
    expect(render({ b: 1, a: { d: [{ f: 1, e: 2 }], c: null } })).toBe(
      '{\n  "a": {\n    "c": null,\n    "d": [\n      {\n        "e": 2,\n        "f": 1\n      }\n    ]\n  },\n  "b": 1\n}\n',
    );
    expect(render(dashboards()["trading-desk.json"])).toBe(render(built["trading-desk.json"]));
  });
});
