// The README, docs/ and CONTRIBUTING.md hold together: every relative link opens a file, every anchor a heading
// (GitHub's slugs), and the README stays a README (at most 25,000 bytes; the manual is docs/).

import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { githubSlug, headingAnchors, readDoc, REPO_ROOT, relativeLinks, userDocs } from "./helpers/markdown-docs.js";

/** The links of `file` that do not resolve, as `file:line target (why)`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const { target, lineNo } of relativeLinks(readDoc(file))) {
    const [path = "", anchor] = target.split("#", 2);
    const resolved = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
    const where = `${file}:${lineNo} ${target}`;
    if (resolved.startsWith("..") || !existsSync(join(REPO_ROOT, resolved))) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith(".md") || statSync(join(REPO_ROOT, resolved)).isDirectory()) {
      broken.push(`${where} (an anchor into a file that is not Markdown)`);
    } else if (!headingAnchors(readDoc(resolved)).has(anchor)) {
      broken.push(`${where} (no heading with that anchor)`);
    }
  }
  return broken;
}

describe("the user's Markdown", () => {
  it("includes the README, CONTRIBUTING.md and one docs file per topic", () => {
    expect(userDocs()).toEqual(
      expect.arrayContaining([
        "README.md",
        "CONTRIBUTING.md",
        "docs/metrics.md",
        "docs/order-counters.md",
        "docs/configuration.md",
        "docs/security.md",
        "docs/alerting.md",
        "docs/dashboards.md",
        "docs/runbooks.md",
        "docs/venue.md",
        "docs/deployment.md",
        "docs/performance.md",
        "docs/benchmarks.md",
        "docs/troubleshooting.md",
      ]),
    );
  });

  it.each(userDocs())("%s: every relative link and anchor resolves", (file) => {
    expect(relativeLinks(readDoc(file)).length, "a file with no links checks nothing").toBeGreaterThan(0);
    expect(brokenLinks(file)).toEqual([]);
  });

  it.each(userDocs().filter((f) => f.startsWith("docs/")))("%s: at most 20,000 bytes, one topic a page", (file) => {
    expect(Buffer.byteLength(readDoc(file))).toBeLessThanOrEqual(20_000);
  });

  // A manual, not a diary: history goes in CHANGELOG.md.
  const DIARY = /before this release|earlier the same day|the same day|shared 2-core|2-core machine|\b20\d\d-[01]\d-[0-3]\d\b|in our runs|latest run/i;
  it.each(userDocs())("%s: reads as a manual, not a diary of dated runs", (file) => {
    const lines = readDoc(file)
      .split("\n")
      .map((text, i) => `${i + 1}: ${text}`)
      // A sample log line's time is the logger's, not a dated run.
      .filter((l) => DIARY.test(l) && !/^\d+: (\{"time":"|time=)/.test(l));
    expect(lines).toEqual([]);
  });

  // Measured figures and how they were measured belong in performance.md and benchmarks.md, the CHANGELOG or a commit.
  const STORY = /one run gave|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+) runs\b|\d\.\d+ times the\b/i;
  const measuring = new Set(["docs/performance.md", "docs/benchmarks.md"]);
  it.each(userDocs().filter((f) => !measuring.has(f)))("%s: tells no measurement story (those are performance.md's and benchmarks.md's)", (file) => {
    const lines = readDoc(file)
      .split("\n")
      .map((text, i) => `${i + 1}: ${text}`)
      .filter((l) => STORY.test(l));
    expect(lines).toEqual([]);
  });

  it("slugs headings as GitHub does", () => {
    expect(githubSlug("Several Prometheus servers (HA pairs)")).toBe("several-prometheus-servers-ha-pairs");
    expect(githubSlug("Reliability: how faults show")).toBe("reliability-how-faults-show");
    expect(githubSlug("Coming from node_exporter")).toBe("coming-from-node_exporter");
    expect(githubSlug("What the exporter assumes where the venue's reference is silent")).toBe(
      "what-the-exporter-assumes-where-the-venues-reference-is-silent",
    );
    expect([...headingAnchors("## Notes\n\n```sh\n# not a heading\n```\n\n## Notes\n")]).toEqual(["notes", "notes-1"]);
  });

  it("the README is at most 25,000 bytes and links into docs/ for each topic", () => {
    const readme = readDoc("README.md");
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25_000);
    const targets = relativeLinks(readme).map((l) => l.target.split("#")[0]);
    for (const topic of [
      "metrics",
      "configuration",
      "security",
      "alerting",
      "dashboards",
      "runbooks",
      "venue",
      "deployment",
      "performance",
      "troubleshooting",
    ]) {
      expect(targets, topic).toContain(`docs/${topic}.md`);
    }
  });

  it("the README's first screen has the Node version, the two commands and how to get Node 24", () => {
    const firstScreen = readDoc("README.md").split("\n").slice(0, 30).join("\n");
    const engines = (JSON.parse(readDoc("package.json")) as { engines: { node: string } }).engines.node;
    expect(engines).toMatch(/^>=\d/);
    expect(firstScreen).toContain(`Node.js ${engines.slice(2)} or later`);
    expect(firstScreen).toContain("npm ci && npm run demo");
    expect(firstScreen).toMatch(/npm install --prefix \S+ node@24 && export PATH=\S+node_modules\/node\/bin:\$PATH/);
  });
});
